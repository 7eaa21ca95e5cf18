/* SPDX-License-Identifier: MIT */
/*
 * main.c - the pmaps tool: subcommand dispatch, global help and version, and
 * what every command does the same way: opening the process, naming a bad
 * option, reporting a failed write.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tool.h"

static const char usage[] =
	"Usage: pmaps COMMAND [OPTIONS] [ARGS]\n"
	"\n"
	"Where is a Linux process's memory, really?\n"
	"\n"
	"Commands:\n"
	"  maps PID           every mapping with every smaps field; --group, --total\n"
	"  pages PID [RANGE]  pages as runs of equal state: present, swapped, zero, ...\n"
	"  explain PID        where the RSS is, in numbers that add up, and why a heap\n"
	"                     profile shows less\n"
	"  demo               start a built-in workload and show where its memory is\n"
	"  help [CMD]         show help for pmaps or for a command\n"
	"\n"
	"Options:\n"
	"  -h, --help     show this help\n"
	"  -V, --version  show the version\n"
	"\n"
	"Run 'pmaps COMMAND --help' for a command's options. See pmaps(1).\n";

int tool_proc_open(struct pmaps_proc **proc, const char *root, const char *pid)
{
	const char *dir = root ? root : "/proc";
	int err = pmaps_proc_open(proc, root, pid), fd, e = 0, search = 0;

	if (err == 0)
		return 0;
	if (err == -EINVAL) {
		die_msg("'%s' is not a process id (a number, or 'self')", pid);
		return EXIT_USAGE;
	}
	if (err == -ENOMEM) {
		die_msg("out of memory");
		return EXIT_FAIL;
	}
	/*
	 * The errno alone does not say which of the two directories failed to
	 * open (EACCES can be either), so the proc root is tried again here: a
	 * missing or unreadable root must never be blamed on the process.
	 */
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		e = errno;
	} else {
		if (faccessat(AT_FDCWD, dir, X_OK, AT_EACCESS) < 0) {
			e = errno;
			search = 1;
		}
		close(fd);
	}
	if (e == ENOENT)
		die_msg("proc root '%s': no such directory", dir);
	else if (e == ENOTDIR)
		die_msg("proc root '%s' is not a directory", dir);
	else if (e == EACCES || e == EPERM)
		die_msg("proc root '%s': permission denied (this user may not %s the directory)", dir,
		        search ? "search" : "read");
	else if (e)
		die_msg("proc root '%s': %s", dir, strerror(e));
	else if (err == -ESRCH)
		die_msg("process %s: no such process", pid);
	else
		die_msg("process %s: %s", pid, pmaps_strerror(err));
	return EXIT_FAIL;
}

void kernel_thread_note(int pid)
{
	note_msg("process %d is a kernel thread: it has no user-space memory", pid);
}

/* A failed write is reported unless an error was already: one line per failure. */
int finish_output(struct out *o, int rc)
{
	out_flush(o);
	if (o->err && rc == EXIT_OK) {
		die_msg("writing output: %s", strerror(o->err));
		return EXIT_FAIL;
	}
	return rc;
}

int finish_stdout(int rc)
{
	/* glibc keeps a failed write's bytes and retries them here, so errno is this failure's. */
	errno = 0;
	if ((fflush(stdout) != 0 || ferror(stdout)) && rc == EXIT_OK) {
		die_msg("writing output: %s", strerror(errno ? errno : EIO));
		return EXIT_FAIL;
	}
	return rc;
}

int set_format(enum fmt *fmt, enum fmt want)
{
	if (*fmt != FMT_TABLE && *fmt != want) {
		die_msg("--json and --csv do not go together: choose one");
		return -1;
	}
	*fmt = want;
	return 0;
}

int print_usage(const char *text)
{
	fputs(text, stdout);
	return finish_stdout(EXIT_OK);
}

int option_error(const char *cmd, char *const *argv, const char *shortopts,
                 const struct option *longopts)
{
	const char *arg = argv[optind - 1];
	const char *p;

	/*
	 * A long option's error leaves optind past it; a short option's may
	 * leave optind on its cluster ("-qb") or before it, so a short option
	 * is named by optopt, never by argv.
	 */
	if (strncmp(arg, "--", 2) == 0 && arg[2]) {
		size_t n = strcspn(arg + 2, "=");
		const struct option *hit = NULL;
		int matches = 0, valued = arg[2 + n] == '=';

		for (const struct option *l = longopts; l->name; l++) {
			if (strncmp(l->name, arg + 2, n) != 0)
				continue;
			hit = l;
			if (l->name[n] == '\0') { /* exact: never ambiguous */
				matches = 1;
				break;
			}
			matches++;
		}
		if (matches == 1 && hit->val == optopt && valued == (hit->has_arg == no_argument)) {
			die_msg(valued ? "option '--%s' takes no value (see pmaps %s --help)"
			               : "option '--%s' needs a value (see pmaps %s --help)",
			        hit->name, cmd);
			return EXIT_USAGE;
		}
		if (optopt == 0) {
			die_msg(matches > 1 ? "option '--%.*s' is ambiguous (see pmaps %s --help)"
			                    : "unknown option '--%.*s' (see pmaps %s --help)",
			        (int)n, arg + 2, cmd);
			return EXIT_USAGE;
		}
	}
	p = optopt > 0 && optopt != ':' ? strchr(shortopts, optopt) : NULL;
	if (p && p[1] == ':')
		die_msg("option '-%c' needs a value (see pmaps %s --help)", optopt, cmd);
	else if (optopt > 0x20 && optopt < 0x7f)
		die_msg("unknown option '-%c' (see pmaps %s --help)", optopt, cmd);
	else
		die_msg("unknown option '%s' (see pmaps %s --help)", arg, cmd);
	return EXIT_USAGE;
}

/*
 * A standard descriptor closed by the caller is held open read-only on
 * /dev/null: otherwise the first file pmaps opens would become its standard
 * output, and a closed stdout would be written into it instead of failing.
 */
static void hold_std_fds(void)
{
	for (int fd = 0; fd <= 2; fd++) {
		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		/* The lowest free descriptor: this one, as the lower ones are open. */
		(void)open("/dev/null", O_RDONLY | O_CLOEXEC);
	}
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : NULL;
	char *help[3] = {NULL, "--help", NULL};

	hold_std_fds();
	if (!cmd) {
		fputs(usage, stderr);
		return EXIT_USAGE;
	}
	if ((strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "-V") == 0 ||
	     strcmp(cmd, "--version") == 0) && argc > 2) {
		die_msg("%s takes nothing after it, not '%s'", cmd, argv[2]);
		return EXIT_USAGE;
	}
	if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0)
		return print_usage(usage);
	if (strcmp(cmd, "-V") == 0 || strcmp(cmd, "--version") == 0)
		return print_usage("pmaps " PMAPS_VERSION "\n");
	if (strcmp(cmd, "help") == 0) {
		help[0] = argc > 2 ? argv[2] : NULL;
		if (!help[0])
			return print_usage(usage);
		argv = help;
		argc = 2;
		cmd = help[0];
	} else {
		argv++;
		argc--;
	}
	if (strcmp(cmd, "maps") == 0)
		return cmd_maps(argc, argv);
	if (strcmp(cmd, "explain") == 0)
		return cmd_explain(argc, argv);
	if (strcmp(cmd, "pages") == 0)
		return cmd_pages(argc, argv);
	if (strcmp(cmd, "demo") == 0)
		return cmd_demo(argc, argv);
	die_msg("unknown command '%s' (see pmaps --help)", cmd);
	return EXIT_USAGE;
}

/* SPDX-License-Identifier: MIT */
/*
 * main.c - the pmaps tool: subcommand dispatch, global help and version.
 */
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"

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
	"  top                every process by what its memory costs: USS, PSS, RSS,\n"
	"                     swap; live on a terminal, a snapshot otherwise\n"
	"  watch PID          the breakdown over time: a line per sample, the peak,\n"
	"                     page-level changes, an SVG timeline\n"
	"  run -- CMD ARGS    start CMD and watch it until it exits\n"
	"  phys               the machine's physical memory by page state (root)\n"
	"  serve              a Prometheus exporter and a live web page over HTTP\n"
	"  wss PID            how much of the RSS the process touches (resets its\n"
	"                     referenced bits: the one command that writes)\n"
	"  demo               start a built-in workload and show where its memory is\n"
	"  help [CMD]         show help for pmaps or for a command\n"
	"\n"
	"Options:\n"
	"  -h, --help     show this help\n"
	"  -V, --version  show the version\n"
	"\n"
	"Run 'pmaps COMMAND --help' for a command's options. See pmaps(1).\n";

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
	/*
	 * A command opens the same cursors more than once (a source's keys, then
	 * its read): their buffers are used again, not given back to the kernel
	 * at each close and asked for again (two brk() calls each way).
	 */
	mallopt(M_TRIM_THRESHOLD, 4 << 20);
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
	if (strcmp(cmd, "top") == 0)
		return cmd_top(argc, argv);
	if (strcmp(cmd, "watch") == 0)
		return cmd_watch(argc, argv);
	if (strcmp(cmd, "run") == 0)
		return cmd_run(argc, argv);
	if (strcmp(cmd, "phys") == 0)
		return cmd_phys(argc, argv);
	if (strcmp(cmd, "serve") == 0)
		return cmd_serve(argc, argv);
	if (strcmp(cmd, "wss") == 0)
		return cmd_wss(argc, argv);
	die_msg("unknown command '%s' (see pmaps --help)", cmd);
	return EXIT_USAGE;
}

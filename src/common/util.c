/* SPDX-License-Identifier: MIT */
/*
 * util.c - what every command does the same way: messages, opening the
 * process, the one report of a failed read, options (formats, column
 * lists), help and a failed write.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "common/escape.h"
#include "common/tool.h"

/*
 * Messages quote what users typed and what targets named (paths, runtime
 * versions, the library's messages about them): all of it goes through the
 * text escape on its way to the terminal.
 */
__attribute__((format(printf, 2, 0)))
static void msg_out(const char *prefix, const char *fmt, va_list ap)
{
	char m[1024], e[4 * sizeof(m) + 4];
	int n = vsnprintf(m, sizeof(m), fmt, ap);

	if (n < 0)
		n = 0;
	esc_text(e, sizeof(e), m, (size_t)n < sizeof(m) ? (size_t)n : sizeof(m) - 1);
	fputs(prefix, stderr);
	fputs(e, stderr);
	fputc('\n', stderr);
}

void die_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	msg_out("pmaps: ", fmt, ap);
	va_end(ap);
}

int tool_width(void)
{
	struct winsize ws;

	if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20)
		return ws.ws_col;
	return 80;
}

void note_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	msg_out("pmaps: note: ", fmt, ap);
	va_end(ap);
}

/* The proc root when the user chose one other than /proc, else NULL. */
static const char *other_root(const struct target *t)
{
	return t->root && strcmp(t->root, "/proc") != 0 && strcmp(t->root, "/proc/") != 0 ? t->root
	                                                                                  : NULL;
}

int tool_proc_open(struct pmaps_proc **proc, const struct target *t)
{
	const char *dir = t->root ? t->root : "/proc";
	int err = pmaps_proc_open(proc, t->root, t->pid), fd, e = 0, search = 0;

	if (err == 0)
		return 0;
	if (err == -EINVAL) {
		die_msg("'%s' is not a process id (a positive number, or 'self')", t->pid);
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
	else {
		struct failure f;
		failed(&f, NULL, err, err == -ESRCH ? "no such process" : NULL);
		return tool_fail(t, &f);
	}
	return EXIT_FAIL;
}

int failed(struct failure *f, const char *file, int err, const char *msg)
{
	f->file = file;
	f->err = err;
	snprintf(f->msg, sizeof(f->msg), "%s", msg ? msg : "");
	return err;
}

/*
 * MSG with its "process PID " said once: the line already starts with the
 * process, and the library's messages name it too ("smaps: process 42
 * exited while it was read" reads "the process exited while ...").
 */
static const char *named_once(char *dst, size_t size, const char *msg, const char *pid)
{
	char name[64];
	const char *p;
	int n = snprintf(name, sizeof(name), "process %s ", pid);

	if (n <= 0 || (size_t)n >= sizeof(name) || !(p = strstr(msg, name)))
		return msg;
	snprintf(dst, size, "%.*sthe process %s", (int)(p - msg), msg, p + n);
	return dst;
}

int tool_fail(const struct target *t, const struct failure *f)
{
	const char *root = other_root(t), *file = f->file, *msg = f->msg;
	char where[512], what[sizeof(f->msg) + 128], once[sizeof(f->msg) + 16];
	int err = f->err;

	if (root)
		snprintf(where, sizeof(where), "process %s (proc root '%s')", t->pid, root);
	else
		snprintf(where, sizeof(where), "process %s", t->pid);
	if (!msg || !msg[0])
		msg = pmaps_strerror(err);
	msg = named_once(once, sizeof(once), msg, t->pid);
	if (err == -ENOENT && root && file) {
		/* A tree that is not procfs lacks a file: no kernel is to blame. */
		snprintf(what, sizeof(what), "%s: no such file in this proc tree", file);
		msg = what;
	} else if ((err == -EACCES || err == -EPERM) && file && !strstr(msg, "CAP_")) {
		snprintf(what, sizeof(what), "%s: %s needs ptrace access: run as the process's user "
		         "or with CAP_SYS_PTRACE", msg, file);
		msg = what;
	}
	die_msg("%s: %s", where, msg);
	return EXIT_FAIL;
}

void kernel_thread_note(int pid)
{
	note_msg("process %d is a kernel thread: it has no user-space memory", pid);
}

int read_over_limit(struct pmaps_proc *proc, enum pmaps_source source, uint64_t *wait_ns)
{
	struct pmaps_status st = {.size = sizeof(st)};
	struct pmaps_cost k = {.size = sizeof(k)};

	*wait_ns = 0;
	if (pmaps_status_read(proc, &st, NULL, 0) < 0 ||
	    pmaps_cost_estimate(&st, 0, source, NULL, &k) < 0)
		return -1;
	*wait_ns = k.wait_ns;
	return k.wait_ns > PMAPS_EXPLAIN_HOLD_NS;
}

const char *fmt_duration(char *b, size_t n, uint64_t ns)
{
	if (ns < 1000000u)
		snprintf(b, n, "%llu us", (unsigned long long)(ns / 1000u));
	else if (ns < 10000000000ull)
		snprintf(b, n, "%llu ms", (unsigned long long)(ns / 1000000u));
	else
		snprintf(b, n, "%llu s", (unsigned long long)(ns / 1000000000u));
	return b;
}

const char *vma_list_name(int query)
{
	if (query == 1)
		return "PROCMAP_QUERY";
	return pmaps_maps_text_unlocked() ? "maps text under per-VMA locks"
	                                  : "maps text";
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

int print_usage(const char *text)
{
	char buf[OUT_FD_BUFSIZE];
	struct out o;

	out_fd(&o, STDOUT_FILENO, buf, sizeof(buf));
	out_str(&o, text);
	return finish_output(&o, EXIT_OK);
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

int parse_decimal(const char *s, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		uint64_t d = (uint64_t)(*s - '0');

		/* V * 10 + D <= MAX, asked without passing 2^64. */
		if (*s < '0' || *s > '9' || d > max || v > (max - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

/* The LEN bytes at S as a decimal number of UNIT nanoseconds. */
static int decimal_ns(const char *s, size_t len, uint64_t unit, uint64_t *ns)
{
	uint64_t whole = 0, frac = 0, scale = 1;
	int digits = 0;
	size_t i = 0;

	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++, digits++) {
		if (whole > (UINT64_MAX - 9) / 10)
			return -1;
		whole = whole * 10 + (uint64_t)(s[i] - '0');
	}
	if (i < len && s[i] == '.') {
		for (i++; i < len && s[i] >= '0' && s[i] <= '9'; i++, digits++) {
			if (scale < 1000000000u) { /* beyond a nanosecond, digits change nothing */
				frac = frac * 10 + (uint64_t)(s[i] - '0');
				scale *= 10;
			}
		}
	}
	if (i != len || !digits || (whole && unit > UINT64_MAX / whole))
		return -1;
	/* FRAC < SCALE <= 10^9, UNIT <= 3.6e12: FRAC * UNIT would not fit, each part does. */
	frac = frac * (unit / scale) + frac * (unit % scale) / scale;
	if (frac > UINT64_MAX - whole * unit)
		return -1;
	*ns = whole * unit + frac;
	return 0;
}

int parse_time(const char *s, uint64_t unit, uint64_t *ns)
{
	static const struct {
		const char *u;
		uint64_t ns;
	} units[] = {{"ms", 1000000u}, {"s", 1000000000u}, {"m", 60000000000u},
	             {"h", 3600000000000u}};
	size_t n = strlen(s);

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		size_t k = strlen(units[i].u);
		if (n > k && strcmp(s + n - k, units[i].u) == 0 &&
		    !(k == 1 && s[n - 2] == 'm')) /* "5ms" is not 5 m and an s */
			return decimal_ns(s, n - k, units[i].ns, ns);
	}
	return decimal_ns(s, n, unit, ns);
}

int parse_wss_wait(const char *s, uint64_t *ns)
{
	if (parse_time(s, 1000000000u, ns) < 0 || *ns < 1000000u || *ns > 86400ull * 1000000000u) {
		die_msg("--wss takes a time from 1ms to 24h (500ms, 5s, 1m), not '%s'", s);
		return -1;
	}
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * fuzz_status.c - libFuzzer target for the /proc/PID/status reader
 * (lib/status.c), fed through the read hook.
 *
 * Input: byte 0 is the size of each piece a read returns (0: as much as
 * asked), byte 1 the read that fails with EIO (0: none); the rest is the
 * text. The bytes of the reader's buffer a read does not fill are poisoned.
 * Checked: the end is 0, -EBADMSG with a "status: " message, or -EIO with
 * nothing present; no value is set without its present bit; every size is
 * a multiple of 1024 and is the number of some "Key:<blanks>N kB" line of
 * the input; every count and uid is a number some line gives; with a 0
 * return, VmRSS read and one of its parts read, VmRSS is their sum. Then
 * the text is read again, in other pieces and under another poison: the
 * same end, the same message and the same figures. Read a third time with
 * Name, State and Kthread asked for (the survey's read): the same end and
 * figures; the name a prefix of some "Name:" line's value and shorter than
 * its room, NUL-terminated; the state the first non-blank of some "State:"
 * line.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "readers.h"
#include "testhooks.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const uint8_t *text;
static size_t text_len, text_pos, piece, fail_at, reads;
static unsigned char poison;

static ssize_t mem_read(int fd, void *buf, size_t len)
{
	size_t n = text_len - text_pos;

	(void)fd;
	if (++reads == fail_at) {
		errno = EIO;
		return -1;
	}
	if (n > len)
		n = len;
	if (piece && n > piece)
		n = piece;
	memcpy(buf, text + text_pos, n);
	memset((char *)buf + n, poison, len - n);
	text_pos += n;
	return (ssize_t)n;
}

struct result {
	int rc;
	struct pmaps_status st;
	char msg[PMAPS_ERRMSG_SIZE];
	struct pmaps__status_who who;
};

static void parse(struct result *r, size_t piece_size, unsigned char fill)
{
	text_pos = 0;
	reads = 0;
	piece = piece_size;
	poison = fill;
	memset(r, 0, sizeof(*r));
	r->rc = pmaps__status_parse(-1, &r->st, r->msg, sizeof(r->msg));
}

static void parse_who(struct result *r)
{
	text_pos = 0;
	reads = 0;
	piece = 0;
	poison = 0x5a;
	memset(r, 0, sizeof(*r));
	r->rc = pmaps__status_parse_who(-1, &r->st, &r->who, r->msg, sizeof(r->msg));
}

/* 1 when some line starts with KEY followed by VALUE[0, LEN) (after TAB when SKIP_TAB, blanks when not). */
static int line_starts(const char *key, const char *value, size_t len, int blanks)
{
	size_t kl = strlen(key);

	for (size_t at = 0; at < text_len;) {
		const uint8_t *l = text + at, *nl = memchr(l, '\n', text_len - at);
		size_t ll = nl ? (size_t)(nl - l) : text_len - at, i = kl;
		at += ll + 1;
		if (ll <= kl || memcmp(l, key, kl) != 0)
			continue;
		if (blanks)
			while (i < ll && (l[i] == ' ' || l[i] == '\t'))
				i++;
		else if (i < ll && l[i] == '\t')
			i++;
		if (ll - i >= len && memcmp(l + i, value, len) == 0)
			return 1;
	}
	return 0;
}

/*
 * 1 when some "Name:" line's value (after one tab), with the kernel's two
 * escapes undone (\\n a newline, \\\\ a backslash, any other byte as it
 * is), starts with NAME[0, LEN).
 */
static int name_said(const char *name, size_t len)
{
	for (size_t at = 0; at < text_len;) {
		const uint8_t *l = text + at, *nl = memchr(l, '\n', text_len - at);
		size_t ll = nl ? (size_t)(nl - l) : text_len - at, i = 5, n = 0;
		at += ll + 1;
		if (ll <= 5 || memcmp(l, "Name:", 5) != 0)
			continue;
		if (i < ll && l[i] == '\t')
			i++;
		for (; i < ll && n < len; i++, n++) {
			char c = (char)l[i];
			if (c == '\\' && i + 1 < ll && (l[i + 1] == '\\' || l[i + 1] == 'n'))
				c = l[++i] == 'n' ? '\n' : '\\';
			if (c != name[n])
				break;
		}
		if (n == len)
			return 1;
	}
	return 0;
}

static void check_who(const struct result *r, const struct result *plain)
{
	const struct pmaps__status_who *w = &r->who;

	if (r->rc != plain->rc || memcmp(&r->st, &plain->st, sizeof(r->st)) != 0)
		abort();
	if (w->name_len >= sizeof(w->name) || w->name[w->name_len] != '\0')
		abort();
	if (w->name_len && !name_said(w->name, w->name_len))
		abort();
	if (w->state && !line_starts("State:", &w->state, 1, 1))
		abort();
	if (w->kthread && !line_starts("Kthread:", "1", 1, 1))
		abort();
}

/*
 * The line each figure comes from: the uids are the first and second numbers
 * of "Uid:", the gids of "Gid:"; NSpid is the last number of its line, the
 * state the first character after "State:" and its blanks.
 */
static const char *const names[PMAPS_ST_COUNT] = {
	[PMAPS_ST_VM_SIZE] = "VmSize:",
	[PMAPS_ST_VM_RSS] = "VmRSS:",
	[PMAPS_ST_RSS_ANON] = "RssAnon:",
	[PMAPS_ST_RSS_FILE] = "RssFile:",
	[PMAPS_ST_RSS_SHMEM] = "RssShmem:",
	[PMAPS_ST_VM_HWM] = "VmHWM:",
	[PMAPS_ST_VM_PTE] = "VmPTE:",
	[PMAPS_ST_VM_SWAP] = "VmSwap:",
	[PMAPS_ST_THREADS] = "Threads:",
	[PMAPS_ST_UID] = "Uid:",
	[PMAPS_ST_EUID] = "Uid:",
	[PMAPS_ST_GID] = "Gid:",
	[PMAPS_ST_EGID] = "Gid:",
	[PMAPS_ST_STATE] = "State:",
	[PMAPS_ST_NSPID] = "NSpid:",
	[PMAPS_ST_PPID] = "PPid:",
	[PMAPS_ST_VM_LCK] = "VmLck:",
};

/* 1 when a line of the input starts with KEY and ends with blanks and the decimal VALUE. */
static int line_ends(const char *key, uint64_t value)
{
	size_t kl = strlen(key);

	for (size_t at = 0; at < text_len;) {
		const uint8_t *l = text + at, *nl = memchr(l, '\n', text_len - at);
		size_t len = nl ? (size_t)(nl - l) : text_len - at, i;
		unsigned __int128 v = 0;
		at += len + 1;
		if (len <= kl || memcmp(l, key, kl) != 0)
			continue;
		for (i = len; i > kl && l[i - 1] == ' '; i--)
			;
		while (i > kl && l[i - 1] >= '0' && l[i - 1] <= '9')
			i--;
		for (size_t j = i; j < len && l[j] >= '0' && l[j] <= '9'; j++)
			v = v * 10 + (unsigned)(l[j] - '0');
		if (i < len && l[i] >= '0' && l[i] <= '9' && v == value)
			return 1;
	}
	return 0;
}

/*
 * 1 when a line of the input starts with KEY, then blanks, then the decimal
 * VALUE (the N-th number on the line, counting from 0, for the uids) and,
 * with KB, " kB" and the line's end.
 */
static int line_says(const char *key, uint64_t value, int nth, int kb)
{
	size_t kl = strlen(key);

	for (size_t at = 0; at < text_len;) {
		const uint8_t *l = text + at, *nl = memchr(l, '\n', text_len - at);
		size_t len = nl ? (size_t)(nl - l) : text_len - at;
		at += len + 1;
		if (len <= kl || memcmp(l, key, kl) != 0)
			continue;
		size_t i = kl;
		for (int k = 0;; k++) {
			unsigned __int128 v = 0;
			size_t digits = 0;
			while (i < len && (l[i] == ' ' || l[i] == '\t'))
				i++;
			for (; i < len && l[i] >= '0' && l[i] <= '9'; i++, digits++) {
				v = v * 10 + (unsigned)(l[i] - '0');
				if (v > UINT64_MAX)
					v = (unsigned __int128)UINT64_MAX + 1; /* too large: no value matches */
			}
			if (!digits)
				break;
			if (k == nth) {
				if (v == value && (!kb || (len - i == 3 && memcmp(l + i, " kB", 3) == 0)))
					return 1;
				break;
			}
		}
	}
	return 0;
}

static void check_figures(const struct result *r)
{
	const struct pmaps_status *st = &r->st;

	if (st->present >> PMAPS_ST_COUNT || st->size != sizeof(*st))
		abort();
	for (int f = 0; f < PMAPS_ST_COUNT; f++) {
		int kb = f != PMAPS_ST_THREADS && f != PMAPS_ST_UID && f != PMAPS_ST_EUID &&
		         f != PMAPS_ST_GID && f != PMAPS_ST_EGID && f != PMAPS_ST_STATE &&
		         f != PMAPS_ST_NSPID && f != PMAPS_ST_PPID;
		uint64_t v = st->v[f];
		int said;
		if (!(st->present & 1ull << f)) {
			if (v != 0)
				abort();
			continue;
		}
		if (kb && (v & 1023))
			abort();
		if (f == PMAPS_ST_STATE) {
			char c = (char)v;
			said = v > ' ' && v < 0x7f && line_starts("State:", &c, 1, 1);
		} else if (f == PMAPS_ST_NSPID) {
			said = line_ends("NSpid:", v);
		} else {
			said = line_says(names[f], kb ? v >> 10 : v,
			                 f == PMAPS_ST_EUID || f == PMAPS_ST_EGID ? 1 : 0, kb);
		}
		if (!said) {
			fprintf(stderr, "%s %llu: no line of the input says so\n", names[f],
			        (unsigned long long)v);
			abort();
		}
	}
	if (r->rc == 0 && (st->present & 1ull << PMAPS_ST_VM_RSS) &&
	    (st->present & (1ull << PMAPS_ST_RSS_ANON | 1ull << PMAPS_ST_RSS_FILE |
	                    1ull << PMAPS_ST_RSS_SHMEM))) {
		unsigned __int128 sum = (unsigned __int128)st->v[PMAPS_ST_RSS_ANON] +
		                        st->v[PMAPS_ST_RSS_FILE] + st->v[PMAPS_ST_RSS_SHMEM];
		if (sum != st->v[PMAPS_ST_VM_RSS]) {
			fprintf(stderr, "VmRSS %llu, its parts' sum %llu: accepted\n",
			        (unsigned long long)st->v[PMAPS_ST_VM_RSS], (unsigned long long)sum);
			abort();
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct result first, again;

	if (size < 2)
		return 0;
	text = data + 2;
	text_len = size - 2;
	fail_at = data[1];
	pmaps__read_hook = mem_read;
	parse(&first, data[0], 0xa5);
	if (first.rc == -EIO) {
		if (first.st.present != 0 || fail_at == 0 || strncmp(first.msg, "status: ", 8) != 0)
			abort();
	} else if (first.rc == -EBADMSG) {
		if (strncmp(first.msg, "status: ", 8) != 0)
			abort();
	} else if (first.rc != 0) {
		abort();
	}
	check_figures(&first);
	/* Again, in other pieces (whole and one byte a read swap), under another poison, no fault. */
	fail_at = 0;
	if (first.rc != -EIO) {
		static struct result who;
		parse_who(&who);
		check_who(&who, &first);
	}
	parse(&again, (size_t)(data[0] ^ 1), '\n');
	pmaps__read_hook = NULL;
	if (first.rc == -EIO)
		return 0; /* the failing read falls elsewhere in other pieces */
	if (again.rc != first.rc || strcmp(again.msg, first.msg) != 0 ||
	    memcmp(&again.st, &first.st, sizeof(first.st)) != 0) {
		fprintf(stderr, "again, in pieces of %d: end %d (%s), present %#llx; the first read, in "
		        "pieces of %d: end %d (%s), present %#llx\n", data[0] ^ 1, again.rc, again.msg,
		        (unsigned long long)again.st.present, data[0], first.rc, first.msg,
		        (unsigned long long)first.st.present);
		abort();
	}
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * fuzz_meminfo.c - libFuzzer target for the /proc/meminfo reader
 * (lib/meminfo.c), fed through the read hook.
 *
 * Input: byte 0 is the size of each piece a read returns (0: as much as
 * asked), byte 1 the read that fails with EIO (0: none); the rest is the
 * text. Checked: the end is 0, -EBADMSG with a "meminfo: " message, or -EIO
 * with nothing present; no value is set without its present bit; every
 * value is a multiple of 1024 and the number of some "Key:<spaces>N kB" line
 * of the input. Then the text is read again in other pieces: the same end
 * and the same figures.
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
	memset((char *)buf + n, 0xa5, len - n);
	text_pos += n;
	return (ssize_t)n;
}

struct result {
	int rc;
	struct pmaps_meminfo mi;
	char msg[PMAPS_ERRMSG_SIZE];
};

static void parse(struct result *r, size_t piece_size)
{
	text_pos = 0;
	reads = 0;
	piece = piece_size;
	memset(r, 0, sizeof(*r));
	r->rc = pmaps__meminfo_parse(-1, &r->mi, r->msg, sizeof(r->msg));
}

/* The key's line as the file spells it: "MemTotal:" for "mem_total". */
static const char *const lines[PMAPS_MI_COUNT] = {
	"MemTotal:", "MemFree:", "MemAvailable:", "Buffers:", "Cached:", "SwapCached:",
	"AnonPages:", "Mapped:", "Shmem:", "KReclaimable:", "Slab:", "PageTables:",
	"SwapTotal:", "SwapFree:", "Dirty:", "AnonHugePages:", "Hugetlb:",
};

/* 1 when a line of the input is KEY, spaces, the decimal KB and " kB". */
static int line_says(const char *key, uint64_t kb)
{
	size_t kl = strlen(key);

	for (size_t at = 0; at < text_len;) {
		const uint8_t *l = text + at, *nl = memchr(l, '\n', text_len - at);
		size_t len = nl ? (size_t)(nl - l) : text_len - at, i = kl, digits = 0;
		unsigned __int128 v = 0;
		at += len + 1;
		if (len <= kl || memcmp(l, key, kl) != 0)
			continue;
		while (i < len && l[i] == ' ')
			i++;
		for (; i < len && l[i] >= '0' && l[i] <= '9'; i++, digits++)
			if ((v = v * 10 + (unsigned)(l[i] - '0')) > UINT64_MAX)
				v = (unsigned __int128)UINT64_MAX + 1;
		if (digits && v == kb && len - i == 3 && memcmp(l + i, " kB", 3) == 0)
			return 1;
	}
	return 0;
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
	parse(&first, data[0]);
	if (first.rc == -EIO) {
		if (first.mi.present != 0 || fail_at == 0 || strncmp(first.msg, "meminfo: ", 9) != 0)
			abort();
	} else if (first.rc == -EBADMSG) {
		if (strncmp(first.msg, "meminfo: ", 9) != 0)
			abort();
	} else if (first.rc != 0) {
		abort();
	}
	if (first.mi.present >> PMAPS_MI_COUNT || first.mi.size != sizeof(first.mi))
		abort();
	for (int f = 0; f < PMAPS_MI_COUNT; f++) {
		uint64_t v = first.mi.v[f];
		if (!(first.mi.present & 1ull << f)) {
			if (v != 0)
				abort();
			continue;
		}
		if ((v & 1023) || !line_says(lines[f], v >> 10)) {
			fprintf(stderr, "%s %llu: no line of the input says so\n", lines[f],
			        (unsigned long long)v);
			abort();
		}
	}
	fail_at = 0;
	parse(&again, (size_t)(data[0] ^ 1));
	pmaps__read_hook = NULL;
	if (first.rc == -EIO)
		return 0;
	if (again.rc != first.rc || strcmp(again.msg, first.msg) != 0 ||
	    memcmp(&again.mi, &first.mi, sizeof(first.mi)) != 0)
		abort();
	return 0;
}

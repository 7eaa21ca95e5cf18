/* SPDX-License-Identifier: MIT */
/*
 * fuzz_dir.c - libFuzzer target for the directory reader over getdents64
 * (lib/dir.c), fed through its hook: records the kernel would never write.
 *
 * Input: byte 0 sets the buffer's size (PMAPS__DIR_MIN plus up to 255 * 8
 * bytes), byte 1 the most a call returns (0: as much as fits), byte 2 the
 * call that fails (0: none; its low bit picks EIO or ENOENT) or, with bit 7,
 * the call that claims more bytes than the buffer holds; the rest is the
 * stream of records. The buffer is allocated at its exact size and the bytes
 * a call does not fill are poisoned. Every name returned lies inside the
 * buffer, NUL-terminated there, and is neither "." nor ".."; the names, their
 * types, their count and the end are those a second walk of the records,
 * written here, finds. A rewind reads the same names, under another poison.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "testhooks.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const uint8_t *recs;
static size_t recs_len, recs_pos, most, calls, fail_at;
static int fail_errno, overclaim;
static unsigned char poison;

static ssize_t mem_getdents(int fd, void *buf, size_t len)
{
	size_t n = recs_len - recs_pos;

	(void)fd;
	if (++calls == fail_at) {
		if (overclaim)
			return (ssize_t)len + 1;
		errno = fail_errno;
		return -1;
	}
	if (n > len)
		n = len;
	if (most && n > most)
		n = most;
	memcpy(buf, recs + recs_pos, n);
	memset((char *)buf + n, poison, len - n);
	recs_pos += n;
	return (ssize_t)n;
}

static uint64_t fnv(uint64_t h, const void *p, size_t len)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < len; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

struct pass {
	uint64_t hash;
	size_t names;
	int rc;
};

/* The second walk: the records as the calls hand them over, CAP bytes of buffer. */
static void expect(size_t cap, struct pass *e)
{
	size_t pos = 0;

	e->hash = 0xcbf29ce484222325ull;
	e->names = 0;
	for (size_t call = 1;; call++) {
		size_t n = recs_len - pos, i = 0;
		if (call == fail_at) {
			e->rc = overclaim ? -EIO : -fail_errno;
			return;
		}
		n = n < cap ? n : cap;
		n = most && n > most ? most : n;
		if (n == 0) {
			e->rc = 0;
			return;
		}
		const uint8_t *chunk = recs + pos;
		pos += n;
		while (i < n) {
			unsigned reclen;
			size_t namelen = 0;
			if (n - i < 20) {
				e->rc = -EIO;
				return;
			}
			reclen = chunk[i + 16] | (unsigned)chunk[i + 17] << 8;
			if (reclen < 20 || reclen > n - i) {
				e->rc = -EIO;
				return;
			}
			while (19 + namelen < reclen && chunk[i + 19 + namelen] != 0)
				namelen++;
			if (19 + namelen == reclen || namelen == 0) {
				e->rc = -EIO;
				return;
			}
			const char *name = (const char *)chunk + i + 19;
			if (!(namelen == 1 && name[0] == '.') &&
			    !(namelen == 2 && name[0] == '.' && name[1] == '.')) {
				e->hash = fnv(fnv(e->hash, name, namelen + 1), chunk + i + 18, 1);
				e->names++;
			}
			i += reclen;
		}
	}
}

static void walk(struct pmaps__dir *d, char *buf, size_t cap, struct pass *p)
{
	const char *name;
	int r;

	p->hash = 0xcbf29ce484222325ull;
	p->names = 0;
	while ((r = pmaps__dir_next(d, &name)) == 1) {
		size_t room, len;
		if (name < buf || name >= buf + cap)
			abort();
		room = (size_t)(buf + cap - name);
		if (!memchr(name, '\0', room))
			abort();
		len = strlen(name);
		if (len == 0 || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
			abort();
		p->hash = fnv(fnv(p->hash, name, len + 1), &d->type, 1);
		p->names++;
	}
	p->rc = r;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	struct pmaps__dir d;
	struct pass want, got, again;
	size_t cap;
	char *buf;

	if (size < 3)
		return 0;
	if (fd < 0 && (fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		abort(); /* rewind's lseek needs a directory; the hook reads none of it */
	cap = PMAPS__DIR_MIN + (size_t)data[0] * 8;
	most = data[1];
	fail_at = data[2] & 0x7f;
	overclaim = (data[2] & 0x80) != 0;
	fail_errno = data[2] & 1 ? ENOENT : EIO;
	recs = data + 3;
	recs_len = size - 3;
	buf = malloc(cap);
	if (!buf)
		return 0;
	expect(cap, &want);
	pmaps__getdents_hook = mem_getdents;
	pmaps__dir_init(&d, fd, buf, cap);
	recs_pos = calls = 0;
	poison = 0xa5;
	walk(&d, buf, cap, &got);
	if (got.rc != want.rc || got.names != want.names || got.hash != want.hash) {
		fprintf(stderr, "%zu names, end %d; the second walk: %zu names, end %d%s\n", got.names,
		        got.rc, want.names, want.rc, got.names == want.names ? " (other names)" : "");
		abort();
	}
	/* A rewind starts over: the same names, the same end, under another poison. */
	if (pmaps__dir_rewind(&d) != 0)
		abort();
	recs_pos = calls = 0;
	poison = 0;
	walk(&d, buf, cap, &again);
	pmaps__getdents_hook = NULL;
	if (again.rc != got.rc || again.names != got.names || again.hash != got.hash)
		abort();
	free(buf);
	return 0;
}

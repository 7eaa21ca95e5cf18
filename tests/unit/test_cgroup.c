/* SPDX-License-Identifier: MIT */
/*
 * test_cgroup.c - memory cgroups and the machine's counters (lib/cgroup.c):
 * what a cgroup path says of containers, pods and units, on the layouts of
 * systemd, docker, containerd, CRI-O, podman and Kubernetes (tests/data/fleet:
 * its README); the v2 reader on that fixture tree; the v1 reader on a cgroup
 * the test makes below its own on this machine's memory controller (and
 * removes); the opener's refusals; /proc/vmstat and the memory PSI; joining
 * a path above a cgroup namespace's root to that root, and finding the root.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "pmaps.h"
#include "../expect.h"

#define FLEET PMAPS_TEST_DATA "/fleet"

static const char A[] = "a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1";
static const char B[] = "b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2";
static const char D[] = "d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4";

static void test_ident(void **state)
{
	static const struct {
		const char *path;
		const char *container, *runtime, *pod, *qos, *unit;
	} cases[] = {
		{"/system.slice/ssh.service", "", "", "", "", "ssh.service"},
		{"/init.scope", "", "", "", "", "init.scope"},
		{"/", "", "", "", "", ""},
		{"", "", "", "", "", ""},
		/* docker, systemd driver and cgroupfs */
		{"/system.slice/docker-a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1.scope",
		 A, "docker", "", "", "docker-a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1.scope"},
		{"/docker/a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1", A, "docker", "",
		 "", ""},
		/* a 64-hex name anywhere else is no container */
		{"/a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1", "", "", "", "", ""},
		/* containerd under Kubernetes, systemd driver: burstable */
		{"/kubepods.slice/kubepods-burstable.slice/"
		 "kubepods-burstable-pod4f1c2d3e_5a6b_4c7d_8e9f_0a1b2c3d4e5f.slice/"
		 "cri-containerd-b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2.scope",
		 B, "containerd", "4f1c2d3e-5a6b-4c7d-8e9f-0a1b2c3d4e5f", "burstable",
		 "cri-containerd-b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2.scope"},
		/* CRI-O, guaranteed (the pod right below kubepods), and its conmon: not the container */
		{"/kubepods.slice/kubepods-pod9e8d7c6b_5a49_4837_a625_1403f2e1d0c9.slice/"
		 "crio-d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4.scope",
		 D, "crio", "9e8d7c6b-5a49-4837-a625-1403f2e1d0c9", "guaranteed",
		 "crio-d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4.scope"},
		{"/kubepods.slice/kubepods-pod9e8d7c6b_5a49_4837_a625_1403f2e1d0c9.slice/"
		 "crio-conmon-d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4.scope",
		 "", "", "9e8d7c6b-5a49-4837-a625-1403f2e1d0c9", "guaranteed",
		 "crio-conmon-d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4.scope"},
		/* the pod's own cgroup: no container yet */
		{"/kubepods.slice/kubepods-besteffort.slice/"
		 "kubepods-besteffort-pod11112222_3333_4444_5555_666677778888.slice",
		 "", "", "11112222-3333-4444-5555-666677778888", "besteffort", ""},
		/* cgroupfs driver: /kubepods/QOS/podUID/ID */
		{"/kubepods/besteffort/pod11112222-3333-4444-5555-666677778888/"
		 "b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2",
		 B, "", "11112222-3333-4444-5555-666677778888", "besteffort", ""},
		{"/kubepods/pod11112222-3333-4444-5555-666677778888/"
		 "b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2",
		 B, "", "11112222-3333-4444-5555-666677778888", "guaranteed", ""},
		/* podman in a user's session, and a unit nested in a container's scope */
		{"/user.slice/user-1000.slice/user@1000.service/user.slice/"
		 "libpod-a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1.scope",
		 A, "podman", "", "",
		 "libpod-a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1.scope"},
		{"/system.slice/docker-a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1.scope/"
		 "system.slice/cron.service",
		 A, "docker", "", "", "cron.service"},
		/* near misses: an ID one digit short, upper case, a pod UID with a letter past f */
		{"/system.slice/docker-a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a.scope",
		 "", "", "", "", "docker-a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a.scope"},
		{"/docker/A1A1A1A1A1A1A1A1A1A1A1A1A1A1A1A1A1A1A1A1A1A1A1A1A1A1A1A1A1A1A1A1", "", "", "", "",
		 ""},
		{"/kubepods/burstable/podg1112222-3333-4444-5555-666677778888", "", "", "", "burstable",
		 ""},
		/* a letter past f late in the UID: no part of it kept (the fuzzer's find) */
		{"/kubepods/besteffort/pod11112222-3333-4444-5555-66667777A888", "", "", "",
		 "besteffort", ""},
		/* burstable outside kubepods is a name like any */
		{"/burstable/pod11112222-3333-4444-5555-666677778888", "", "", "", "", ""},
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pmaps_cgroup_ident id;
		char unit[256];
		memset(&id, 0x5a, sizeof(id));
		pmaps_cgroup_ident(cases[i].path, strlen(cases[i].path), &id);
		snprintf(unit, sizeof(unit), "%.*s", (int)id.unit.len, id.unit.len ? id.unit.ptr : "");
		print_message("%s\n", cases[i].path);
		assert_string_equal(id.container_id, cases[i].container);
		assert_string_equal(id.runtime, cases[i].runtime);
		assert_string_equal(id.pod_uid, cases[i].pod);
		assert_string_equal(id.qos, cases[i].qos);
		assert_string_equal(unit, cases[i].unit);
	}
}

static void test_root_open(void **state)
{
	char msg[512];
	int version = 0, fd;

	(void)state;
	fd = pmaps_cgroup_root_open(FLEET "/cgroup", &version, msg, sizeof(msg));
	expect_ge(fd, 0);
	assert_int_equal(version, 2);
	close(fd);
	/* No controller there: said, with the directory. */
	fd = pmaps_cgroup_root_open(FLEET "/proc", &version, msg, sizeof(msg));
	assert_int_equal(fd, -ENOENT);
	expect_contains(msg, "no memory controller");
	fd = pmaps_cgroup_root_open(FLEET "/none", &version, msg, sizeof(msg));
	assert_int_equal(fd, -ENOENT);
	expect_contains(msg, FLEET "/none");
}

/* A v2 cgroup of the fixture, every figure as its files give it. */
static void test_read_v2(void **state)
{
	struct pmaps_cgroup_mem m = {.size = sizeof(m)};
	char msg[256];
	int version, root, fd;
	static const char path[] = "/system.slice/ssh.service";
	static const struct {
		int f;
		uint64_t v;
	} want[] = {
		{PMAPS_CG_CURRENT, 124780544},
		{PMAPS_CG_PEAK, 124850176},
		{PMAPS_CG_MAX, 1140850688},
		{PMAPS_CG_LOW, 0},
		{PMAPS_CG_MIN, 0},
		{PMAPS_CG_SWAP_CURRENT, 139264},
		{PMAPS_CG_ANON, 53477376},
		{PMAPS_CG_FILE, 35651584},
		{PMAPS_CG_KERNEL, 17825792},
		{PMAPS_CG_KERNEL_STACK, 278528},
		{PMAPS_CG_PAGETABLES, 696320},
		{PMAPS_CG_SLAB, 17 * 32768},
		{PMAPS_CG_SOCK, 69632},
		{PMAPS_CG_SHMEM, 1114112},
		{PMAPS_CG_FILE_MAPPED, 8912896},
		{PMAPS_CG_FILE_DIRTY, 69632},
		{PMAPS_CG_FILE_WRITEBACK, 0},
		{PMAPS_CG_ANON_THP, 35651584},
		{PMAPS_CG_INACTIVE_ANON, 17825792},
		{PMAPS_CG_ACTIVE_ANON, 2 * 17825792},
		{PMAPS_CG_INACTIVE_FILE, 17825792},
		{PMAPS_CG_ACTIVE_FILE, 17825792},
		{PMAPS_CG_UNEVICTABLE, 0},
		{PMAPS_CG_PGFAULT, 17007},
		{PMAPS_CG_PGMAJFAULT, 85},
		{PMAPS_CG_REFAULT_ANON, 51},
		{PMAPS_CG_REFAULT_FILE, 187},
		{PMAPS_CG_EVENTS_LOW, 0},
		{PMAPS_CG_EVENTS_HIGH, 34},
		{PMAPS_CG_EVENTS_MAX, 17},
		{PMAPS_CG_EVENTS_OOM, 1},
		{PMAPS_CG_EVENTS_OOM_KILL, 1},
		{PMAPS_CG_PSI_SOME_US, 17000051},
		{PMAPS_CG_PSI_FULL_US, 8500017},
		{PMAPS_CG_PSI_SOME_AVG10, 1775},
		{PMAPS_CG_PSI_FULL_AVG10, 7},
	};
	uint64_t present = 0;

	(void)state;
	root = pmaps_cgroup_root_open(FLEET "/cgroup", &version, NULL, 0);
	expect_ge(root, 0);
	fd = pmaps_cgroup_dir_open(root, path, strlen(path));
	expect_ge(fd, 0);
	assert_int_equal(pmaps_cgroup_mem_read(fd, version, &m, msg, sizeof(msg)), 0);
	assert_int_equal(m.version, 2);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		print_message("%s\n", pmaps_cgroup_key(want[i].f));
		expect_set(m.present, 1ull << want[i].f);
		assert_int_equal(m.v[want[i].f], want[i].v);
		present |= 1ull << want[i].f;
	}
	/* "max": absent, as every field the files do not give. */
	assert_int_equal(m.present, present);
	close(fd);

	/* A path that is not there, and paths refused. */
	assert_int_equal(pmaps_cgroup_dir_open(root, "/gone.scope", 10), -ENOENT);
	assert_int_equal(pmaps_cgroup_dir_open(root, "/system.slice/..", 16), -EINVAL);
	assert_int_equal(pmaps_cgroup_dir_open(root, "/system.slice//ssh.service", 26), -EINVAL);
	assert_int_equal(pmaps_cgroup_dir_open(root, "/./system.slice", 15), -EINVAL);
	assert_int_equal(pmaps_cgroup_dir_open(root, "/sys\0tem.slice", 14), -EINVAL);
	/* The root of the hierarchy: memory.stat and memory.pressure only, as a v2 root. */
	fd = pmaps_cgroup_dir_open(root, "/", 1);
	expect_ge(fd, 0);
	assert_int_equal(pmaps_cgroup_mem_read(fd, 2, &m, msg, sizeof(msg)), 0);
	assert_int_equal(m.present, 1ull << PMAPS_CG_ANON | 1ull << PMAPS_CG_FILE |
	                                1ull << PMAPS_CG_PSI_SOME_US | 1ull << PMAPS_CG_PSI_FULL_US |
	                                1ull << PMAPS_CG_PSI_SOME_AVG10 |
	                                1ull << PMAPS_CG_PSI_FULL_AVG10);
	close(fd);
	/* A directory that is no memory cgroup. */
	fd = pmaps_cgroup_root_open(FLEET "/proc", &version, NULL, 0);
	assert_int_equal(fd, -ENOENT);
	close(root);
}

/* A scratch tree: DIR/name made from (name, content) pairs; a NULL content makes a directory. */
static void tree(const char *dir, const char *const *files)
{
	for (size_t i = 0; files[i]; i += 2) {
		char p[512];
		snprintf(p, sizeof(p), "%s/%s", dir, files[i]);
		if (!files[i + 1]) {
			expect_sys(mkdir(p, 0755));
			continue;
		}
		FILE *f = fopen(p, "w");
		assert_non_null(f);
		fputs(files[i + 1], f);
		fclose(f);
	}
}

/* Symlinks, FIFOs and bad values in a v2 tree the test writes. */
static void test_hostile_tree(void **state)
{
	char dir[] = "/tmp/pmaps-cg-XXXXXX", p[512], msg[256];
	const char *const files[] = {
		"cgroup.controllers", "memory\n",
		"a", NULL,
		"a/memory.current", "4096\n",
		"a/memory.stat", "anon 12x\n",
		"b", NULL,
		"b/memory.current", "8192\n",
		"b/memory.pressure", "some avg10=abc total=1\n",
		"c", NULL,
		"c/memory.current", "-1\n",
		"d", NULL,
		"d/memory.current", "4096\n",
		NULL,
	};
	struct pmaps_cgroup_mem m = {.size = sizeof(m)};
	int version, root, fd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	tree(dir, files);
	snprintf(p, sizeof(p), "%s/link", dir);
	expect_sys(symlink("a", p));
	snprintf(p, sizeof(p), "%s/d/memory.stat", dir);
	expect_sys(mkfifo(p, 0600));
	root = pmaps_cgroup_root_open(dir, &version, msg, sizeof(msg));
	expect_ge(root, 0);
	assert_int_equal(version, 2);
	/* A symlink is never followed: as if absent. */
	assert_int_equal(pmaps_cgroup_dir_open(root, "/link", 5), -ENOENT);
	fd = pmaps_cgroup_dir_open(root, "/a", 2);
	assert_int_equal(pmaps_cgroup_mem_read(fd, 2, &m, msg, sizeof(msg)), -EBADMSG);
	expect_contains(msg, "memory.stat");
	close(fd);
	fd = pmaps_cgroup_dir_open(root, "/b", 2);
	assert_int_equal(pmaps_cgroup_mem_read(fd, 2, &m, msg, sizeof(msg)), -EBADMSG);
	expect_contains(msg, "memory.pressure");
	close(fd);
	fd = pmaps_cgroup_dir_open(root, "/c", 2);
	assert_int_equal(pmaps_cgroup_mem_read(fd, 2, &m, msg, sizeof(msg)), -EBADMSG);
	expect_contains(msg, "memory.current");
	close(fd);
	/* A FIFO for memory.stat: not opened (an open would block), said. */
	fd = pmaps_cgroup_dir_open(root, "/d", 2);
	assert_int_equal(pmaps_cgroup_mem_read(fd, 2, &m, msg, sizeof(msg)), -EBADMSG);
	expect_contains(msg, "memory.stat");
	/* A size below the struct's, a version neither 1 nor 2. */
	m.size = 4;
	assert_int_equal(pmaps_cgroup_mem_read(fd, 2, &m, msg, sizeof(msg)), -EINVAL);
	m.size = sizeof(m);
	assert_int_equal(pmaps_cgroup_mem_read(fd, 3, &m, msg, sizeof(msg)), -EINVAL);
	close(fd);
	close(root);
	snprintf(p, sizeof(p), "rm -rf '%s'", dir);
	assert_int_equal(system(p), 0);
}

/* Reads "name value" NAME of FILE, or UINT64_MAX. */
static uint64_t file_value(const char *file, const char *name)
{
	char line[512];
	uint64_t v = UINT64_MAX;
	size_t n = name ? strlen(name) : 0;
	FILE *f = fopen(file, "r");

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		if (!name) {
			v = strtoull(line, NULL, 10);
			break;
		}
		if (strncmp(line, name, n) == 0 && line[n] == ' ') {
			v = strtoull(line + n + 1, NULL, 10);
			break;
		}
	}
	fclose(f);
	return v;
}

#define HELD (16u << 20)

/* What test_read_v1_live made: removed by its teardown, whether it passed or not. */
static char made_dir[1400];
static pid_t made_child;

static int v1_teardown(void **state)
{
	(void)state;
	if (made_child > 0) {
		kill(made_child, SIGKILL);
		waitpid(made_child, NULL, 0);
		made_child = 0;
	}
	if (made_dir[0] && rmdir(made_dir) < 0 && errno != ENOENT) {
		print_error("rmdir %s: %s\n", made_dir, strerror(errno));
		return -1;
	}
	made_dir[0] = '\0';
	return 0;
}

/*
 * A child in cgroup directory DIR (v1) holding HELD bytes of anonymous
 * memory it wrote, at rest once this returns.
 */
static pid_t holder(const char *dir)
{
	int go[2], ready[2];
	char c = 0, p[1400];
	pid_t pid;
	FILE *f;

	expect_sys(pipe(go));
	expect_sys(pipe(ready));
	pid = fork();
	expect_sys(pid);
	if (pid == 0) {
		volatile char *mem;
		prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlives a failed test */ /* written page by page: no store the compiler may drop */
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		mem = malloc(HELD);
		if (!mem)
			_exit(1);
		for (size_t i = 0; i < HELD; i += 4096)
			mem[i] = 1;
		if (write(ready[1], &c, 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	snprintf(p, sizeof(p), "%s/cgroup.procs", dir);
	f = fopen(p, "w");
	assert_non_null(f);
	fprintf(f, "%d\n", (int)pid);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(write(go[1], &c, 1), 1);
	assert_int_equal(read(ready[0], &c, 1), 1);
	close(go[0]);
	close(go[1]);
	close(ready[0]);
	close(ready[1]);
	return pid;
}

/*
 * v1, live: a cgroup made below this test's own memory cgroup (and
 * removed), its figures against its files; a limit set and unset.
 */
static void test_read_v1_live(void **state)
{
	char own[512] = "", dir[1024], p[1200], line[512];
	struct pmaps_cgroup_mem m = {.size = sizeof(m)};
	int version, root, fd;
	FILE *f;

	(void)state;
	if (access("/sys/fs/cgroup/memory/memory.usage_in_bytes", F_OK) != 0 || geteuid() != 0) {
		if (getenv("CI") && strcmp(getenv("CI"), "") != 0 && strcmp(getenv("CI"), "false") != 0)
			fail_msg("no v1 memory controller, or not root: CI has both");
		print_message("skipped: the v1 memory controller at /sys/fs/cgroup/memory, as root\n");
		skip();
	}
	f = fopen("/proc/self/cgroup", "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		char *c = strstr(line, ":memory:");
		if (c) {
			snprintf(own, sizeof(own), "%s", c + 8);
			own[strcspn(own, "\n")] = '\0';
		}
	}
	fclose(f);
	assert_true(own[0] == '/');
	snprintf(dir, sizeof(dir), "%s/pmaps-test-%d", strcmp(own, "/") ? own : "", (int)getpid());
	snprintf(p, sizeof(p), "/sys/fs/cgroup/memory%s", dir);
	expect_sys(mkdir(p, 0755));
	snprintf(made_dir, sizeof(made_dir), "%s", p);
	made_child = holder(p);

	root = pmaps_cgroup_root_open(NULL, &version, NULL, 0);
	expect_ge(root, 0);
	assert_int_equal(version, 1);
	fd = pmaps_cgroup_dir_open(root, dir, strlen(dir));
	expect_ge(fd, 0);
	assert_int_equal(pmaps_cgroup_mem_read(fd, 1, &m, NULL, 0), 0);
	assert_int_equal(m.version, 1);
	/* No limit: absent. Its figures: its files' (its one process rests). */
	expect_clear(m.present, 1ull << PMAPS_CG_MAX);
	expect_ge(m.v[PMAPS_CG_ANON], HELD);
	expect_ge(m.v[PMAPS_CG_CURRENT], HELD);
	{
		char fp[1400];
		snprintf(fp, sizeof(fp), "%s/memory.usage_in_bytes", p);
		assert_int_equal(m.v[PMAPS_CG_CURRENT], file_value(fp, NULL));
		snprintf(fp, sizeof(fp), "%s/memory.failcnt", p);
		assert_int_equal(m.v[PMAPS_CG_EVENTS_MAX], file_value(fp, NULL));
		snprintf(fp, sizeof(fp), "%s/memory.stat", p);
		assert_int_equal(m.v[PMAPS_CG_ANON], file_value(fp, "total_rss"));
		assert_int_equal(m.v[PMAPS_CG_FILE], file_value(fp, "total_cache"));
		assert_int_equal(m.v[PMAPS_CG_PGFAULT], file_value(fp, "total_pgfault"));
		snprintf(fp, sizeof(fp), "%s/memory.oom_control", p);
		assert_int_equal(m.v[PMAPS_CG_EVENTS_OOM_KILL], file_value(fp, "oom_kill"));
		/* A limit: 64 MiB, then none again. */
		snprintf(fp, sizeof(fp), "%s/memory.limit_in_bytes", p);
		f = fopen(fp, "w");
		assert_non_null(f);
		fputs("67108864\n", f);
		assert_int_equal(fclose(f), 0);
		assert_int_equal(pmaps_cgroup_mem_read(fd, 1, &m, NULL, 0), 0);
		expect_set(m.present, 1ull << PMAPS_CG_MAX);
		assert_int_equal(m.v[PMAPS_CG_MAX], 67108864);
		f = fopen(fp, "w");
		assert_non_null(f);
		fputs("-1\n", f);
		assert_int_equal(fclose(f), 0);
		assert_int_equal(pmaps_cgroup_mem_read(fd, 1, &m, NULL, 0), 0);
		expect_clear(m.present, 1ull << PMAPS_CG_MAX);
	}
	close(fd);
	close(root);
}

static void test_vmstat(void **state)
{
	struct pmaps_vmstat vm = {.size = sizeof(vm)};
	char msg[256];

	(void)state;
	assert_int_equal(pmaps_vmstat_read(FLEET "/proc", &vm, msg, sizeof(msg)), 0);
	assert_int_equal(vm.v[PMAPS_VMS_PGMAJFAULT], file_value(FLEET "/proc/vmstat", "pgmajfault"));
	assert_int_equal(vm.v[PMAPS_VMS_OOM_KILL], file_value(FLEET "/proc/vmstat", "oom_kill"));
	assert_int_equal(vm.v[PMAPS_VMS_REFAULT_FILE],
	                 file_value(FLEET "/proc/vmstat", "workingset_refault_file"));
	assert_int_equal(vm.v[PMAPS_VMS_PSI_SOME_US], 2345678);
	assert_int_equal(vm.v[PMAPS_VMS_PSI_FULL_US], 1234567);
	assert_int_equal(vm.v[PMAPS_VMS_PSI_SOME_AVG10], 125);
	assert_int_equal(vm.v[PMAPS_VMS_PSI_FULL_AVG10], 50);
	/* Every field read: the fixture is this kernel's vmstat. */
	assert_int_equal(vm.present, (1ull << PMAPS_VMS_COUNT) - 1);
	/* A proc tree without vmstat: said. */
	assert_int_equal(pmaps_vmstat_read(PMAPS_TEST_DATA "/top/proc", &vm, msg, sizeof(msg)),
	                 -ENOENT);
	expect_contains(msg, "vmstat");
	/* Live: this kernel's. */
	assert_int_equal(pmaps_vmstat_read(NULL, &vm, msg, sizeof(msg)), 0);
	expect_set(vm.present, 1ull << PMAPS_VMS_PGMAJFAULT | 1ull << PMAPS_VMS_PGFAULT);
	for (int f = 0; f < PMAPS_VMS_COUNT; f++)
		assert_non_null(pmaps_vmstat_key(f));
	assert_null(pmaps_vmstat_key(PMAPS_VMS_COUNT));
	for (int f = 0; f < PMAPS_CG_COUNT; f++)
		assert_non_null(pmaps_cgroup_key(f));
	assert_null(pmaps_cgroup_key(PMAPS_CG_COUNT));
}

/* A namespace's paths joined to where its root is in the tree. */
static void test_path_join(void **state)
{
	static const struct {
		const char *root, *path, *want; /* WANT NULL: refused (-EINVAL) */
	} cases[] = {
		{"/", "/", "/"},
		{"/", "/a/b", "/a/b"},
		{"/a/b", "/", "/a/b"},
		{"/a/b", "/c", "/a/b/c"},
		{"/a/b", "/..", "/a"},
		{"/a/b", "/../..", "/"},
		{"/a/b", "/../../x/y.scope", "/x/y.scope"},
		{"/a/b", "/../c", "/a/c"},
		{"/a/b/", "/../c/", "/a/c"},
		{"/a/b", "//.//c", "/a/b/c"},
		{"/a/b", "/../../..", NULL},
		{"/", "/..", NULL},
		{"/a", "relative", NULL},
		{"/a", "", NULL},
	};
	char out[64];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int r = pmaps_cgroup_path_join(cases[i].root, strlen(cases[i].root), cases[i].path,
		                               strlen(cases[i].path), out, sizeof(out));
		if (!cases[i].want) {
			if (r != -EINVAL)
				print_error("%s + %s: got %d (%s), want -EINVAL\n", cases[i].root,
				            cases[i].path, r, r > 0 ? out : "");
			assert_int_equal(r, -EINVAL);
			continue;
		}
		if (r < 0 || strcmp(out, cases[i].want) != 0)
			print_error("%s + %s: got %d \"%s\", want \"%s\"\n", cases[i].root, cases[i].path,
			            r, r >= 0 ? out : "", cases[i].want);
		assert_int_equal(r, (int)strlen(cases[i].want));
		assert_string_equal(out, cases[i].want);
	}
	/* Room: the path and its NUL, or -ENAMETOOLONG. */
	assert_int_equal(pmaps_cgroup_path_join("/a", 2, "/bc", 3, out, 6), 5);
	assert_string_equal(out, "/a/bc");
	assert_int_equal(pmaps_cgroup_path_join("/a", 2, "/bc", 3, out, 5), -ENAMETOOLONG);
}

/*
 * In the machine's cgroup namespace, the root is the tree's: the cgroup
 * listing this process is the one /proc/self/cgroup names (live, on the
 * memory controller's hierarchy).
 */
static void test_ns_root_live(void **state)
{
	char out[1024];
	int version, fd, r;

	(void)state;
	fd = pmaps_cgroup_root_open(NULL, &version, NULL, 0);
	if (fd < 0) {
		skip(); /* no memory controller here: the namespace test covers it in CI */
		return;
	}
	r = pmaps_cgroup_ns_root(fd, version, out, sizeof(out));
	close(fd);
	if (r != 1)
		print_error("pmaps_cgroup_ns_root: %d %s\n", r, r > 0 ? out : "");
	assert_int_equal(r, 1);
	assert_string_equal(out, "/");
	/* Below a tree that does not list this process: -ENOENT. */
	fd = open(FLEET "/cgroup", O_PATH | O_DIRECTORY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(pmaps_cgroup_ns_root(fd, 2, out, sizeof(out)), -ENOENT);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ident),
		cmocka_unit_test(test_root_open),
		cmocka_unit_test(test_read_v2),
		cmocka_unit_test(test_hostile_tree),
		cmocka_unit_test_teardown(test_read_v1_live, v1_teardown),
		cmocka_unit_test(test_vmstat),
		cmocka_unit_test(test_path_join),
		cmocka_unit_test(test_ns_root_live),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

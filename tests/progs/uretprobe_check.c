// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Kernel-side checks of return probes for tests/guest/run.sh and
 * tests/integration/kernel_abi.sh. The caller puts a return probe on
 * probed_leaf (offset printed by "offset") through tracefs, then runs
 * "suite N syscall|int3", which calls probed_leaf N times in this process,
 * N times under a seccomp filter that allows almost nothing, N times under
 * seccomp strict mode, and once calls uretprobe() directly. It prints
 * PASS/FAIL lines; the caller counts the probe hits and syscalls in tracefs.
 */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define NR_URETPROBE 335	/* x86-64, since 6.11 (and the 6.1 backport) */

/*
 * A leaf that leaves rcx and r11 alone: the syscall trampoline must give
 * them back as they were, although the syscall instruction clobbers both.
 * It starts with push, which the kernel emulates instead of single-stepping.
 */
__asm__(".text\n"
	".globl probed_leaf\n"
	".type probed_leaf, @function\n"
	"probed_leaf:\n"
	"	push %rbp\n"
	"	lea 1(%rdi), %rax\n"
	"	pop %rbp\n"
	"	ret\n"
	".size probed_leaf, .-probed_leaf\n");
void probed_leaf(void);

/* One call with known rcx/r11; 0 when the result and both registers survive. */
static int call_once(unsigned long arg)
{
	unsigned long rax, rcx, r11;

	__asm__ volatile("movq $0x1234567, %%rcx\n\t"
			 "movq $0x89abcde, %%r11\n\t"
			 "call probed_leaf\n\t"
			 "movq %%rcx, %1\n\t"
			 "movq %%r11, %2\n\t"
			 : "=a"(rax), "=r"(rcx), "=r"(r11), "+D"(arg)
			 :
			 : "rcx", "r11", "rsi", "rdx", "r8", "r9", "r10", "memory", "cc");
	if (rax != arg + 1)
		return 1;
	return rcx == 0x1234567 && r11 == 0x89abcde ? 0 : 2;
}

static int call_many(int n)
{
	for (int i = 0; i < n; i++) {
		int err = call_once((unsigned long)i * 7);

		if (err)
			return err;
	}
	return 0;
}

static int report(const char *name, int ok, const char *detail)
{
	if (ok)
		printf("PASS %s\n", name);
	else
		printf("FAIL %s: %s\n", name, detail);
	fflush(stdout);
	return ok ? 0 : 1;
}

/* Only what call_many() and the exit need, and not uretprobe(). */
static int install_filter(void)
{
	struct sock_filter insns[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_exit_group, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_exit, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
	};
	struct sock_fprog prog = { .len = sizeof(insns) / sizeof(insns[0]), .filter = insns };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -errno;
	return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) ? -errno : 0;
}

enum child_mode { CHILD_FILTER, CHILD_STRICT, CHILD_DIRECT };

/* Exit status of a child in mode, or 1000 + signal number. */
static int run_child(enum child_mode mode, int n)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		long rc;

		prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);	/* no core for SIGILL/SIGSYS */
		switch (mode) {
		case CHILD_FILTER:
			if (install_filter())
				syscall(SYS_exit, 90);
			syscall(SYS_exit, call_many(n));
			break;
		case CHILD_STRICT:
			if (syscall(SYS_seccomp, SECCOMP_SET_MODE_STRICT, 0, NULL))
				syscall(SYS_exit, 90);
			/* strict mode allows exit but not exit_group */
			syscall(SYS_exit, call_many(n));
			break;
		case CHILD_DIRECT:
			rc = syscall(NR_URETPROBE);
			_exit(rc == -1 && errno == ENOSYS ? 38 : 91);
		}
		_exit(92);
	}
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFSIGNALED(status) ? 1000 + WTERMSIG(status) : WEXITSTATUS(status);
}

static const char *describe(int st, char *buf, size_t len)
{
	if (st >= 1000)
		snprintf(buf, len, "killed by signal %d (%s)", st - 1000, strsignal(st - 1000));
	else
		snprintf(buf, len, "exit status %d", st);
	return buf;
}

static long file_offset_of(const void *addr)
{
	FILE *f = fopen("/proc/self/maps", "re");
	unsigned long start, end, pgoff, a = (unsigned long)addr;
	char line[512];
	long off = -1;

	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx %*s %lx", &start, &end, &pgoff) == 3 && a >= start &&
		    a < end) {
			off = (long)(a - start + pgoff);
			break;
		}
	}
	if (f)
		fclose(f);
	return off;
}

int main(int argc, char **argv)
{
	char buf[128];
	int failed = 0, n, st;
	bool want_syscall;

	if (argc == 2 && !strcmp(argv[1], "offset")) {
		printf("0x%lx\n", file_offset_of((const void *)probed_leaf));
		return 0;
	}
	if (argc != 4 || strcmp(argv[1], "suite") || (n = atoi(argv[2])) <= 0 ||
	    (strcmp(argv[3], "syscall") && strcmp(argv[3], "int3"))) {
		fprintf(stderr, "usage: uretprobe_check offset | suite N syscall|int3\n");
		return 2;
	}
	want_syscall = !strcmp(argv[3], "syscall");

	st = call_many(n);
	snprintf(buf, sizeof(buf), st == 1 ? "wrong return value" : "rcx/r11 changed across the call");
	failed |= report("uretprobe_returns_and_keeps_registers", st == 0, buf);

	st = run_child(CHILD_FILTER, n);
	failed |= report("uretprobe_survives_seccomp_filter", st == 0, describe(st, buf, sizeof(buf)));
	st = run_child(CHILD_STRICT, n);
	failed |= report("uretprobe_survives_seccomp_strict", st == 0, describe(st, buf, sizeof(buf)));

	st = run_child(CHILD_DIRECT, 0);
	if (want_syscall)
		failed |= report("uretprobe_direct_call_sigill", st == 1000 + SIGILL,
				 describe(st, buf, sizeof(buf)));
	else
		failed |= report("uretprobe_direct_call_enosys", st == 38, describe(st, buf, sizeof(buf)));
	return failed;
}

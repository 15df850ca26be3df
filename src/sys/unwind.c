// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * DWARF unwinding of copied user stacks through elfutils' libdwfl: one Dwfl
 * per process (its mapped files, from /proc/PID/maps), kept for the next
 * record of the same process, with thread callbacks that answer register and
 * memory reads from the copy instead of ptrace. A read outside the copied
 * window fails, which ends the walk there: never a guessed frame.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <elfutils/libdwfl.h>
#include <dwarf.h>

#include "dl_bind.h"
#include "ringside/unwind.h"

/* libdw, opened by the first unwinder (dl_bind.h): only --stacks needs it. */
#define DW_FNS(X) X(dwfl_begin) X(dwfl_end) X(dwfl_report_begin) X(dwfl_report_end) \
		  X(dwfl_linux_proc_report) X(dwfl_linux_proc_find_elf) \
		  X(dwfl_standard_find_debuginfo) X(dwfl_attach_state) X(dwfl_addrmodule) \
		  X(dwfl_getthread_frames) X(dwfl_frame_pc) X(dwfl_thread_state_registers) \
		  X(dwfl_thread_state_register_pc)
RS_DL_LIBRARY(dw, "libdw.so.1", "libdw1", DW_FNS)
/* Filled once libdw is bound: its own functions find the files. */
static Dwfl_Callbacks proc_callbacks;


#define UNWIND_PROCS 8

/* x86-64 DWARF register numbers (psABI): rbp 6, rsp 7. */
#define DWARF_X86_64_RBP 6

struct unwind_proc {
	pid_t pid;
	Dwfl *dwfl;
	unsigned long last_used;
};

struct unwind_walk {
	uint64_t *pcs;
	unsigned int max, n;
};

struct ringside_unwinder {
	struct unwind_proc procs[UNWIND_PROCS];
	unsigned long tick;
	/* The copy being unwound: what the thread callbacks answer from. */
	const struct rs_stack_copy *copy;
};

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_arg)
{
	(void)dwfl;
	(void)arg;
	(void)thread_arg;
	return 0;	/* only get_thread is used: one named thread */
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_arg)
{
	(void)dwfl;
	(void)tid;
	*thread_arg = arg;
	return true;
}

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	const struct ringside_unwinder *u = arg;
	const struct rs_stack_copy *c = u->copy;

	(void)dwfl;
	if (!c || addr < c->start || addr - c->start > c->len ||
	    c->len - (addr - c->start) < sizeof(*result))
		return false;
	memcpy(result, c->data + (addr - c->start), sizeof(*result));
	return true;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	const struct ringside_unwinder *u = arg;
	Dwarf_Word regs[2] = { u->copy->bp, u->copy->sp };

	if (!dw.dwfl_thread_state_registers(thread, DWARF_X86_64_RBP, 2, regs))
		return false;
	dw.dwfl_thread_state_register_pc(thread, u->copy->ip);
	return true;
}

static const Dwfl_Thread_Callbacks copy_callbacks = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

static void proc_drop(struct unwind_proc *p)
{
	if (p->dwfl)
		dw.dwfl_end(p->dwfl);
	memset(p, 0, sizeof(*p));
}

/* The process's files and their call-frame information, freshly reported. */
static int proc_load(struct ringside_unwinder *u, struct unwind_proc *p, pid_t pid)
{
	Dwfl *dwfl = dw.dwfl_begin(&proc_callbacks);
	int err;

	if (!dwfl)
		return -ENOMEM;
	dw.dwfl_report_begin(dwfl);
	err = dw.dwfl_linux_proc_report(dwfl, pid);
	if (err || dw.dwfl_report_end(dwfl, NULL, NULL) ||
	    !dw.dwfl_attach_state(dwfl, NULL, pid, &copy_callbacks, u)) {
		dw.dwfl_end(dwfl);
		return err == ENOENT || err == ESRCH ? -ESRCH : err > 0 ? -err : -EINVAL;
	}
	p->pid = pid;
	p->dwfl = dwfl;
	return 0;
}

static struct unwind_proc *proc_get(struct ringside_unwinder *u, pid_t pid, uint64_t ip)
{
	struct unwind_proc *p = NULL, *oldest = &u->procs[0];

	for (int i = 0; i < UNWIND_PROCS; i++) {
		if (u->procs[i].dwfl && u->procs[i].pid == pid)
			p = &u->procs[i];
		if (u->procs[i].last_used < oldest->last_used)
			oldest = &u->procs[i];
	}
	/* A file mapped since the report (dlopen, exec): report again. */
	if (p && !dw.dwfl_addrmodule(p->dwfl, ip))
		proc_drop(p);
	else if (p)
		goto found;
	p = oldest;
	proc_drop(p);
	if (proc_load(u, p, pid))
		return NULL;
found:
	p->last_used = ++u->tick;
	return p;
}

static int frame_cb(Dwfl_Frame *frame, void *arg)
{
	struct unwind_walk *w = arg;
	Dwarf_Addr pc;
	bool activation;

	if (!dw.dwfl_frame_pc(frame, &pc, &activation) || !pc)
		return DWARF_CB_ABORT;
	w->pcs[w->n++] = pc;
	return w->n < w->max ? DWARF_CB_OK : DWARF_CB_ABORT;
}

int ringside_unwind(struct ringside_unwinder *u, pid_t pid, const struct rs_stack_copy *copy,
		    size_t copy_size, uint64_t *pcs, unsigned int max)
{
	struct unwind_walk w = { pcs, max, 0 };
	struct unwind_proc *p;

	if (!u || !copy || !pcs || !max || copy_size < sizeof(*copy) ||
	    copy->len > copy_size - sizeof(*copy))
		return -EINVAL;
	p = proc_get(u, pid, copy->ip);
	if (!p)
		return -ESRCH;
	if (!dw.dwfl_addrmodule(p->dwfl, copy->ip))
		return 0;
	u->copy = copy;
	/* -1 where the information or the window ends: the frames so far stand. */
	dw.dwfl_getthread_frames(p->dwfl, pid, frame_cb, &w);
	u->copy = NULL;
	return (int)w.n;
}

int ringside_unwinder_new(struct ringside_unwinder **out)
{
	*out = NULL;
	if (dw_unavailable())
		return -ENOENT;
	proc_callbacks.find_elf = dw.dwfl_linux_proc_find_elf;
	proc_callbacks.find_debuginfo = dw.dwfl_standard_find_debuginfo;
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

const char *ringside_unwinder_unavailable(void)
{
	return dw_unavailable();
}

void ringside_unwinder_free(struct ringside_unwinder *u)
{
	if (!u)
		return;
	for (int i = 0; i < UNWIND_PROCS; i++)
		proc_drop(&u->procs[i]);
	free(u);
}

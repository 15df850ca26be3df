/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Internal: a run's changes to the system, written down before they are made.
 *
 * Every change a command makes outside its own process (a cgroup setting, a
 * zram swap device, a temp file, a scratch cgroup, a helper process) is first
 * appended to a state file of its own, /run/ringside/PID.state. A clean exit
 * undoes the changes and removes the file; a run killed before it could (a
 * SIGKILL, a crash) leaves the file, and the next state-changing run or
 * `ringside cleanup` undoes them from it (ringside_state_repair()).
 */
#ifndef RINGSIDE_STATE_JOURNAL_H
#define RINGSIDE_STATE_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct rs_journal {
	int fd;			/* the state file, -1 when none is open */
	char path[512];
};

/* The folder of the state files: $RINGSIDE_STATE_DIR, or /run/ringside. */
const char *rs_journal_dir(void);

/*
 * Start this run's journal: repairs the journals of dead runs first (each
 * repair reported through fn), then creates ours. -EBUSY (with *holder set)
 * when a live run already holds a journal naming the same cgroup.
 */
typedef void (*rs_journal_note_fn)(void *ctx, const char *line);
int rs_journal_begin(struct rs_journal *j, const char *cgroup, pid_t *holder,
		     rs_journal_note_fn fn, void *ctx);

/* Before dir/file is first changed: remember its value now (trailing newline dropped). */
int rs_journal_setting(struct rs_journal *j, const char *dir, const char *file);
/* A zram device this run added (after hot_add named it, before it is used). */
int rs_journal_zram(struct rs_journal *j, int id);
/* A file this run created and must remove. */
int rs_journal_file(struct rs_journal *j, const char *path);
/* A helper process this run started (killed on repair if it still runs). */
int rs_journal_process(struct rs_journal *j, pid_t pid);

/* The run restored everything itself: drop the journal. */
void rs_journal_end(struct rs_journal *j);

/*
 * Undo one journal's records, last first, reporting each action through fn.
 * Exposed for the unit test; ringside_state_repair() calls it per dead run.
 */
int rs_journal_replay(const char *path, rs_journal_note_fn fn, void *ctx);

#endif

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The state journal (state_journal.h). A state file is text, one record a
 * line, fields separated by tabs, appended with one write() each so that a
 * kill between two changes leaves whole records:
 *
 *   owner  PID  START        the run (start time tells PID reuse apart)
 *   cgroup PATH              the cgroup the run works on (one run per cgroup)
 *   set    PATH VALUE        PATH held VALUE before the run changed it
 *   zram   ID                /dev/zramID was added by the run, maybe as swap
 *   file   PATH              the run created PATH
 *   proc   PID  START        a helper process the run started
 *
 * Replay walks the records last first: helpers are killed before the swap
 * they may use is turned off, settings go back in the reverse order of change.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "memcg_io.h"
#include "proc_stat.h"
#include "state_journal.h"
#include "ringside/ringside.h"

#define JOURNAL_MAX_BYTES (64 * 1024)
#define JOURNAL_MAX_RECORDS 256

const char *rs_journal_dir(void)
{
	const char *dir = getenv("RINGSIDE_STATE_DIR");

	return dir && *dir ? dir : "/run/ringside";
}

static void notef(rs_journal_note_fn fn, void *ctx, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void notef(rs_journal_note_fn fn, void *ctx, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	if (!fn)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	fn(ctx, line);
}

/* A field must not break the line format. */
static bool field_ok(const char *s)
{
	return s && *s && !strpbrk(s, "\t\n");
}

static int append(struct rs_journal *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int append(struct rs_journal *j, const char *fmt, ...)
{
	char line[8400];
	va_list ap;
	int n;

	if (j->fd < 0)
		return -EBADF;
	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(line))
		return -ENAMETOOLONG;
	return write(j->fd, line, (size_t)n) == n ? 0 : (errno ? -errno : -EIO);
}

/* Is the process PID with that start time still there? */
static bool process_alive(pid_t pid, unsigned long long start)
{
	uint64_t now;

	return pid > 0 && !rs_proc_start_time(pid, &now) && now == start;
}

/* Whole-folder lock: begin and repair must not interleave. */
static int lock_dir(const char *dir)
{
	char path[512];
	int fd;

	if (mkdir(dir, 0700) && errno != EEXIST)
		return -errno;
	snprintf(path, sizeof(path), "%s/.lock", dir);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	while (flock(fd, LOCK_EX) && errno == EINTR)
		;
	return fd;
}

struct journal_file {
	char *text;
	char *rec[JOURNAL_MAX_RECORDS];	/* lines, tabs split into NULs by the reader */
	unsigned int nr;
	pid_t owner;
	unsigned long long owner_start;
	const char *cgroup;
};

static int journal_read(const char *path, struct journal_file *jf)
{
	FILE *f = fopen(path, "re");
	size_t n;
	char *save = NULL;

	memset(jf, 0, sizeof(*jf));
	if (!f)
		return -errno;
	jf->text = calloc(1, JOURNAL_MAX_BYTES + 1);
	if (!jf->text) {
		fclose(f);
		return -ENOMEM;
	}
	n = fread(jf->text, 1, JOURNAL_MAX_BYTES, f);
	fclose(f);
	jf->text[n] = '\0';
	for (char *line = strtok_r(jf->text, "\n", &save); line && jf->nr < JOURNAL_MAX_RECORDS;
	     line = strtok_r(NULL, "\n", &save)) {
		jf->rec[jf->nr++] = line;
		if (!strncmp(line, "owner\t", 6))
			sscanf(line + 6, "%d\t%llu", &jf->owner, &jf->owner_start);
		else if (!strncmp(line, "cgroup\t", 7))
			jf->cgroup = line + 7;
	}
	return 0;
}

/* The second field of a record: what follows the first tab (cut at the next). */
static char *field(char *rec, unsigned int nth)
{
	char *p = rec;

	for (unsigned int i = 0; i < nth; i++) {
		p = strchr(p, '\t');
		if (!p)
			return NULL;
		*p++ = '\0';
	}
	return p;
}

static void undo_setting(char *rec, rs_journal_note_fn fn, void *ctx)
{
	char *path = field(rec, 1), *value = path ? field(path, 1) : NULL, *slash;
	int err;

	if (!path || !value || !(slash = strrchr(path, '/')))
		return;
	*slash = '\0';
	err = rs_write_file(path, slash + 1, value);
	if (err >= 0)
		notef(fn, ctx, "restored %s/%s to %s", path, slash + 1, value);
	else if (err == -ENOENT || err == -ENODEV)
		notef(fn, ctx, "%s is gone: nothing to restore", path);
	else
		notef(fn, ctx, "cannot restore %s/%s to %s: %s", path, slash + 1, value, strerror(-err));
}

static void undo_zram(const char *id_text, rs_journal_note_fn fn, void *ctx)
{
	char dev[64], id[16];
	int n = atoi(id_text), err;

	snprintf(dev, sizeof(dev), "/dev/zram%d", n);
	snprintf(id, sizeof(id), "%d", n);
	/* EINVAL: it never became swap (killed during set-up). */
	if (swapoff(dev) && errno != EINVAL && errno != ENOENT)
		notef(fn, ctx, "cannot turn off swap on %s: %s", dev, strerror(errno));
	err = rs_write_file("/sys/class/zram-control", "hot_remove", id);
	if (err >= 0)
		notef(fn, ctx, "removed zram device %s", dev);
	else if (err != -ENODEV && err != -ENOENT)
		notef(fn, ctx, "cannot remove %s: %s", dev, strerror(-err));
}

static void undo_process(char *rec, rs_journal_note_fn fn, void *ctx)
{
	char *args = field(rec, 1);
	int pid = 0;
	unsigned long long start = 0;

	if (!args || sscanf(args, "%d\t%llu", &pid, &start) != 2 || !process_alive(pid, start))
		return;
	kill(pid, SIGKILL);
	/* Wait for it to go: its memory (and swap use) must be released first. */
	for (int i = 0; i < 200 && process_alive(pid, start); i++)
		nanosleep(&(struct timespec){ .tv_nsec = 10 * 1000 * 1000 }, NULL);
	notef(fn, ctx, "killed the run's helper process %d", pid);
}

int rs_journal_replay(const char *path, rs_journal_note_fn fn, void *ctx)
{
	struct journal_file jf;
	int err = journal_read(path, &jf);

	if (err)
		return err;
	for (unsigned int i = jf.nr; i-- > 0;) {
		char *rec = jf.rec[i];

		if (!strncmp(rec, "set\t", 4)) {
			undo_setting(rec, fn, ctx);
		} else if (!strncmp(rec, "zram\t", 5)) {
			undo_zram(rec + 5, fn, ctx);
		} else if (!strncmp(rec, "file\t", 5)) {
			if (!unlink(rec + 5))
				notef(fn, ctx, "removed %s", rec + 5);
		} else if (!strncmp(rec, "proc\t", 5)) {
			undo_process(rec, fn, ctx);
		}
	}
	free(jf.text);
	return 0;
}

static bool is_state_file(const char *name)
{
	size_t n = strlen(name);

	return n > 6 && !strcmp(name + n - 6, ".state");
}

/*
 * Under the folder lock: replay and remove dead runs' journals; with cgroup
 * set, find a live run that works on it. Returns dead runs repaired.
 */
static int scan(const char *dir, const char *cgroup, pid_t *holder, rs_journal_note_fn fn,
		void *ctx)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int repaired = 0;

	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d))) {
		struct journal_file jf;
		char path[768];

		if (!is_state_file(de->d_name))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (journal_read(path, &jf))
			continue;
		if (process_alive(jf.owner, jf.owner_start)) {
			if (cgroup && jf.cgroup && !strcmp(jf.cgroup, cgroup) && holder && !*holder)
				*holder = jf.owner;
			free(jf.text);
			continue;
		}
		free(jf.text);
		notef(fn, ctx, "repairing what ringside PID %d left behind when it was killed (%s)",
		      (int)jf.owner, path);
		rs_journal_replay(path, fn, ctx);
		unlink(path);
		repaired++;
	}
	closedir(d);
	return repaired;
}

int ringside_state_repair(void (*fn)(void *ctx, const char *line), void *ctx)
{
	const char *dir = rs_journal_dir();
	int lock, n;

	if (access(dir, F_OK))
		return 0;
	lock = lock_dir(dir);
	if (lock < 0)
		return lock;
	n = scan(dir, NULL, NULL, fn, ctx);
	close(lock);
	return n;
}

int rs_journal_begin(struct rs_journal *j, const char *cgroup, pid_t *holder,
		     rs_journal_note_fn fn, void *ctx)
{
	const char *dir = rs_journal_dir();
	uint64_t start;
	int lock, err;

	j->fd = -1;
	j->path[0] = '\0';
	if (holder)
		*holder = 0;
	if (cgroup && !field_ok(cgroup))
		return -EINVAL;
	err = rs_proc_start_time(getpid(), &start);
	if (err)
		return err;
	lock = lock_dir(dir);
	if (lock < 0)
		return lock;
	err = scan(dir, cgroup, holder, fn, ctx);
	if (err >= 0 && holder && *holder)
		err = -EBUSY;
	if (err >= 0) {
		snprintf(j->path, sizeof(j->path), "%s/%d.state", dir, (int)getpid());
		j->fd = open(j->path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0600);
		err = j->fd < 0 ? -errno : 0;
	}
	if (!err)
		err = append(j, "owner\t%d\t%llu\n", (int)getpid(), (unsigned long long)start);
	if (!err && cgroup)
		err = append(j, "cgroup\t%s\n", cgroup);
	close(lock);
	if (err < 0 && j->fd >= 0)
		rs_journal_end(j);
	return err < 0 ? err : 0;
}

int rs_journal_setting(struct rs_journal *j, const char *dir, const char *file)
{
	char value[256];
	int err = rs_read_file(dir, file, value, sizeof(value));

	if (err < 0)
		return err;
	value[strcspn(value, "\n")] = '\0';
	if (!field_ok(dir) || !field_ok(value))
		return -EINVAL;
	return append(j, "set\t%s/%s\t%s\n", dir, file, value);
}

int rs_journal_zram(struct rs_journal *j, int id)
{
	return append(j, "zram\t%d\n", id);
}

int rs_journal_file(struct rs_journal *j, const char *path)
{
	return field_ok(path) ? append(j, "file\t%s\n", path) : -EINVAL;
}

int rs_journal_process(struct rs_journal *j, pid_t pid)
{
	uint64_t start;
	int err = rs_proc_start_time(pid, &start);

	return err ? err : append(j, "proc\t%d\t%llu\n", (int)pid, (unsigned long long)start);
}

void rs_journal_end(struct rs_journal *j)
{
	if (j->fd < 0)
		return;
	close(j->fd);
	j->fd = -1;
	unlink(j->path);
}

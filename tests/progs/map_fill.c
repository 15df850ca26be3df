// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Fill the one BPF hash map named NAME until the kernel refuses a row, with
 * keys no collector makes (the first 32 bits count up from 0x80000000, a
 * tgid above any pid_max; every other byte 0xff) and zero values. Tests use
 * it to make a map full without millions of real rows. Prints "filled N,
 * full" once the kernel answers E2BIG; exit 1 when no or several maps have
 * that name, or the kernel refuses a row for another reason.
 *
 * Usage: map_fill NAME
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

static int find_map(const char *name, struct bpf_map_info *out)
{
	uint32_t id = 0;
	int found = -1, matches = 0;

	while (!bpf_map_get_next_id(id, &id)) {
		struct bpf_map_info info = { 0 };
		uint32_t len = sizeof(info);
		int fd = bpf_map_get_fd_by_id(id);

		if (fd < 0)
			continue;
		if (!bpf_obj_get_info_by_fd(fd, &info, &len) && !strcmp(info.name, name)) {
			matches++;
			if (found >= 0)
				close(found);
			found = fd;
			*out = info;
			continue;
		}
		close(fd);
	}
	if (matches != 1) {
		fprintf(stderr, "map_fill: %d maps named %s, want exactly one\n", matches, name);
		if (found >= 0)
			close(found);
		return -1;
	}
	return found;
}

int main(int argc, char **argv)
{
	struct bpf_map_info info;
	int fd, ncpu = libbpf_num_possible_cpus();
	bool percpu;
	unsigned char *key, *val;
	size_t val_size;
	uint64_t filled = 0;
	unsigned int retries = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: map_fill NAME\n");
		return 2;
	}
	fd = find_map(argv[1], &info);
	if (fd < 0)
		return 1;
	percpu = info.type == BPF_MAP_TYPE_PERCPU_HASH || info.type == BPF_MAP_TYPE_LRU_PERCPU_HASH;
	val_size = percpu ? ((info.value_size + 7) & ~7u) * (size_t)ncpu : info.value_size;
	key = malloc(info.key_size < 4 ? 4 : info.key_size);
	val = calloc(1, val_size);
	if (!key || !val || info.key_size < 4)
		return 1;
	memset(key, 0xff, info.key_size);
	/* Until the map says it is full (E2BIG); any other refusal is an error. */
	for (uint32_t i = 0;; i++) {
		uint32_t k = 0x80000000u + i;

		memcpy(key, &k, sizeof(k));
		if (!bpf_map_update_elem(fd, key, val, BPF_NOEXIST)) {
			filled++;
			retries = 0;
			continue;
		}
		if (errno == EEXIST)
			continue;
		if (errno == E2BIG)
			break;
		/*
		 * A map without preallocation takes rows from per-CPU caches the
		 * kernel refills in the background: a tight loop can find them
		 * empty. Give it time (a second at most per row) and try again.
		 */
		if (errno == ENOMEM && retries++ < 5000) {
			usleep(200);
			i--;
			continue;
		}
		fprintf(stderr, "map_fill: row %llu of %s: %s\n", (unsigned long long)filled, argv[1],
			strerror(errno));
		return 1;
	}
	printf("filled %llu, full\n", (unsigned long long)filled);
	free(key);
	free(val);
	close(fd);
	return 0;
}

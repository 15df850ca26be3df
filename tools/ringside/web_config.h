/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * --web.config.file: the Prometheus exporter-toolkit format, read with
 * libyaml. Supported: tls_server_config (cert_file, key_file) and
 * basic_auth_users (user: bcrypt hash); anything else is refused by name.
 */
#ifndef RINGSIDE_WEB_CONFIG_H
#define RINGSIDE_WEB_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#define WEB_MAX_USERS 32

struct web_user {
	char *name;
	char *hash;		/* bcrypt ($2a$, $2b$, $2y$) */
	char *verified;		/* the last password that matched: bcrypt is slow on purpose */
};

struct web_config {
	char *cert_pem, *key_pem;	/* file contents; NULL: plain HTTP */
	struct web_user users[WEB_MAX_USERS];
	unsigned int nr_users;		/* 0: no authentication */
};

/* Read and check path; one-line reason in why on failure (-1). */
int web_config_load(const char *path, struct web_config *cfg, char *why, size_t len);
/* May this user/password pass? (true when no users are configured) */
bool web_config_auth(struct web_config *cfg, const char *user, const char *password);
void web_config_free(struct web_config *cfg);

#endif

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * --web.config.file (exporter-toolkit format) through libyaml; bcrypt through
 * crypt_r(). Both are opened when a config file is read (dl_bind.h): linked,
 * they were every command's relocated pages for the agent's sake.
 */
#include <crypt.h>
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "dl_bind.h"
#include "web_config.h"

#define YAML_FNS(X)                                                                             \
	X(yaml_parser_initialize) X(yaml_parser_set_input_file) X(yaml_parser_load)             \
	X(yaml_parser_delete) X(yaml_document_get_root_node) X(yaml_document_get_node)          \
	X(yaml_document_delete)
RS_DL_LIBRARY(yml, "libyaml-0.so.2", "libyaml-0-2", YAML_FNS)
#define CRYPT_FNS(X) X(crypt_r)
RS_DL_LIBRARY(libcrypt, "libcrypt.so.1", "libcrypt1", CRYPT_FNS)

/* A file's contents, NUL-terminated (certificates and keys are PEM text). */
static char *slurp(const char *path, char *why, size_t len)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t size = 0, n;
	char chunk[4096];

	if (!f) {
		snprintf(why, len, "%s: %s", path, strerror(errno));
		return NULL;
	}
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		char *b = realloc(buf, size + n + 1);

		if (!b || size + n > (1 << 20)) {
			free(b ? b : buf);
			fclose(f);
			snprintf(why, len, "%s: %s", path, b ? "larger than 1 MiB" : "out of memory");
			return NULL;
		}
		buf = b;
		memcpy(buf + size, chunk, n);
		size += n;
	}
	fclose(f);
	if (!buf) {
		snprintf(why, len, "%s: empty file", path);
		return NULL;
	}
	buf[size] = '\0';
	return buf;
}

static const char *scalar(yaml_document_t *doc, yaml_node_t *n)
{
	(void)doc;
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* A path in the config is relative to the config file's directory, as in exporter-toolkit. */
static char *load_relative(const char *config, const char *path, char *why, size_t len)
{
	char full[4096], dir[4096];

	if (path[0] == '/') {
		snprintf(full, sizeof(full), "%s", path);
	} else {
		snprintf(dir, sizeof(dir), "%s", config);
		snprintf(full, sizeof(full), "%s/%s", dirname(dir), path);
	}
	return slurp(full, why, len);
}

static int tls_section(const char *config, yaml_document_t *doc, yaml_node_t *map,
		       struct web_config *cfg, char *why, size_t len)
{
	const char *cert = NULL, *key = NULL;

	if (map->type != YAML_MAPPING_NODE) {
		snprintf(why, len, "%s: tls_server_config is not a mapping", config);
		return -1;
	}
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		const char *k = scalar(doc, yml.yaml_document_get_node(doc, p->key));
		const char *v = scalar(doc, yml.yaml_document_get_node(doc, p->value));

		if (k && !strcmp(k, "cert_file") && v) {
			cert = v;
		} else if (k && !strcmp(k, "key_file") && v) {
			key = v;
		} else {
			snprintf(why, len, "%s: tls_server_config.%s is not supported (cert_file and "
				 "key_file are)", config, k ? k : "?");
			return -1;
		}
	}
	if (!cert || !key) {
		snprintf(why, len, "%s: tls_server_config needs both cert_file and key_file", config);
		return -1;
	}
	cfg->cert_pem = load_relative(config, cert, why, len);
	cfg->key_pem = cfg->cert_pem ? load_relative(config, key, why, len) : NULL;
	return cfg->key_pem ? 0 : -1;
}

static int users_section(const char *config, yaml_document_t *doc, yaml_node_t *map,
			 struct web_config *cfg, char *why, size_t len)
{
	if (map->type != YAML_MAPPING_NODE) {
		snprintf(why, len, "%s: basic_auth_users is not a mapping of user: bcrypt hash", config);
		return -1;
	}
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		const char *user = scalar(doc, yml.yaml_document_get_node(doc, p->key));
		const char *hash = scalar(doc, yml.yaml_document_get_node(doc, p->value));

		if (!user || !hash || strncmp(hash, "$2", 2)) {
			snprintf(why, len, "%s: basic_auth_users.%s: give a bcrypt hash ($2b$...), e.g. "
				 "from htpasswd -nBC 10 USER", config, user ? user : "?");
			return -1;
		}
		if (cfg->nr_users == WEB_MAX_USERS) {
			snprintf(why, len, "%s: more than %d basic_auth_users", config, WEB_MAX_USERS);
			return -1;
		}
		cfg->users[cfg->nr_users].name = strdup(user);
		cfg->users[cfg->nr_users].hash = strdup(hash);
		if (!cfg->users[cfg->nr_users++].hash) {
			snprintf(why, len, "out of memory");
			return -1;
		}
	}
	return 0;
}

int web_config_load(const char *path, struct web_config *cfg, char *why, size_t len)
{
	FILE *f = fopen(path, "re");
	yaml_parser_t parser;
	yaml_document_t doc;
	yaml_node_t *root;
	int err = 0;

	const char *missing = yml_unavailable();

	memset(cfg, 0, sizeof(*cfg));
	if (missing) {
		snprintf(why, len, "--web.config.file %s: %s", path, missing);
		if (f)
			fclose(f);
		return -1;
	}
	if (!f) {
		snprintf(why, len, "--web.config.file %s: %s", path, strerror(errno));
		return -1;
	}
	yml.yaml_parser_initialize(&parser);
	yml.yaml_parser_set_input_file(&parser, f);
	if (!yml.yaml_parser_load(&parser, &doc)) {
		snprintf(why, len, "%s: line %zu: %s", path, parser.problem_mark.line + 1,
			 parser.problem ? parser.problem : "not YAML");
		yml.yaml_parser_delete(&parser);
		fclose(f);
		return -1;
	}
	root = yml.yaml_document_get_root_node(&doc);
	if (root && root->type != YAML_MAPPING_NODE) {
		snprintf(why, len, "%s: not a mapping of tls_server_config and basic_auth_users", path);
		err = -1;
	}
	for (yaml_node_pair_t *p = root && !err ? root->data.mapping.pairs.start : NULL;
	     p && p < root->data.mapping.pairs.top && !err; p++) {
		const char *k = scalar(&doc, yml.yaml_document_get_node(&doc, p->key));
		yaml_node_t *v = yml.yaml_document_get_node(&doc, p->value);

		if (k && !strcmp(k, "tls_server_config"))
			err = tls_section(path, &doc, v, cfg, why, len);
		else if (k && !strcmp(k, "basic_auth_users"))
			err = users_section(path, &doc, v, cfg, why, len);
		else {
			snprintf(why, len, "%s: %s is not supported (tls_server_config and "
				 "basic_auth_users are)", path, k ? k : "?");
			err = -1;
		}
	}
	yml.yaml_document_delete(&doc);
	yml.yaml_parser_delete(&parser);
	fclose(f);
	/* Checked here, not at the first login: a config that cannot be used fails at start. */
	if (!err && cfg->nr_users && (missing = libcrypt_unavailable())) {
		snprintf(why, len, "%s: basic_auth_users: %s", path, missing);
		err = -1;
	}
	if (err)
		web_config_free(cfg);
	return err;
}

/* Equal strings, in time that does not depend on where they differ. */
static bool same(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	unsigned char d = la != lb;

	for (size_t i = 0; i < la && i < lb; i++)
		d |= (unsigned char)(a[i] ^ b[i]);
	return !d;
}

bool web_config_auth(struct web_config *cfg, const char *user, const char *password)
{
	struct crypt_data *cd;
	const char *out;
	bool ok;

	if (!cfg->nr_users)
		return true;
	if (!user || !password)
		return false;
	for (unsigned int i = 0; i < cfg->nr_users; i++) {
		struct web_user *u = &cfg->users[i];

		if (strcmp(u->name, user))
			continue;
		if (u->verified && same(u->verified, password))
			return true;
		cd = calloc(1, sizeof(*cd));
		if (!cd)
			return false;
		out = libcrypt.crypt_r(password, u->hash, cd);
		ok = out && out[0] != '*' && same(out, u->hash);
		free(cd);
		if (ok) {
			free(u->verified);
			u->verified = strdup(password);
		}
		return ok;
	}
	return false;
}

void web_config_free(struct web_config *cfg)
{
	free(cfg->cert_pem);
	free(cfg->key_pem);
	for (unsigned int i = 0; i < cfg->nr_users; i++) {
		free(cfg->users[i].name);
		free(cfg->users[i].hash);
		free(cfg->users[i].verified);
	}
	memset(cfg, 0, sizeof(*cfg));
}

/*
 * tune_configs.c - which configurations `hugepolicy tune` runs, and the
 * environment each one sets.
 *
 * hugepolicy's: every backend x page mode that the probe's plan says this
 * machine supports (thp where THP can back advised memory, hugetlb where a
 * pool has free pages; off and auto always), mimalloc only where the
 * backend finds libmimalloc.so.2.  Then the native peers that are
 * installed, each in its huge-page form (so only with thp among the
 * modes, and only where THP is available): Debian's libjemalloc.so.2 with
 * MALLOC_CONF=thp:always,metadata_thp:always, libmimalloc.so.2 with large
 * OS pages (MIMALLOC_LARGE_OS_PAGES, mimalloc 2.0's name, and
 * MIMALLOC_ALLOW_LARGE_OS_PAGES, the name from 2.1 on), glibc's own
 * GLIBC_TUNABLES=glibc.malloc.hugetlb=1 (glibc >= 2.35).  What is left
 * out is kept with the reason.  conf[0] is system/off, the baseline.
 */
#define _GNU_SOURCE
#include "hp_cli.h"
#include "hp_tune.h"

#include <gnu/libc-version.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char *const known_backends[] = { "system", "jemalloc", "mimalloc",
					      "native-jemalloc", "native-mimalloc", "native-glibc" };
static const char *const known_modes[] = { "off", "thp", "hugetlb", "auto" };

/* 1: word is in the comma list (NULL: every word is) */
static int in_list(const char *list, const char *word)
{
	if (!list)
		return 1;
	size_t n = strlen(word);
	for (const char *p = list; *p;) {
		size_t w = strcspn(p, ",");
		if (w == n && strncmp(p, word, n) == 0)
			return 1;
		p += w;
		p += *p == ',';
	}
	return 0;
}

/* 0, or 2 after a line naming the first unknown word of list */
static int check_list(const char *opt, const char *list, const char *const *known, int nknown)
{
	if (!list)
		return 0;
	for (const char *p = list;;) {
		size_t w = strcspn(p, ",");
		int ok = 0;
		for (int k = 0; k < nknown; k++)
			ok |= strlen(known[k]) == w && strncmp(p, known[k], w) == 0;
		if (!ok) {
			fprintf(stderr, "hugepolicy tune: %s: '%.*s' is not one of", opt, (int)w, p);
			for (int k = 0; k < nknown; k++)
				fprintf(stderr, "%s %s", k ? "," : "", known[k]);
			fprintf(stderr, "\n");
			return 2;
		}
		if (!p[w])
			return 0;
		p += w + 1;
	}
}

static void skip(struct tune_state *s, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void skip(struct tune_state *s, const char *name, const char *fmt, ...)
{
	if (s->nskip >= TUNE_MAX_CONFIGS)
		return;
	hp_strlcpy(s->skipped[s->nskip][0], name, sizeof s->skipped[0][0]);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(s->skipped[s->nskip][1], sizeof s->skipped[0][1], fmt, ap);
	va_end(ap);
	s->nskip++;
}

static void set_env(struct tune_config *c, const char *name, const char *value)
{
	if (c->nenv >= TUNE_MAX_ENV)
		return;
	hp_strlcpy(c->env[c->nenv][0], name, sizeof c->env[0][0]);
	hp_strlcpy(c->env[c->nenv][1], value, sizeof c->env[0][1]);
	c->nenv++;
}

static struct tune_config *add(struct tune_state *s, const char *backend, const char *pages, int hugepolicy)
{
	if (s->nconf >= TUNE_MAX_CONFIGS)
		return NULL;
	struct tune_config *c = &s->conf[s->nconf++];
	memset(c, 0, sizeof *c);
	snprintf(c->name, sizeof c->name, "%s/%s", backend, pages);
	c->backend = backend, c->pages = pages, c->hugepolicy = hugepolicy;
	if (hugepolicy) {
		set_env(c, "LD_PRELOAD", s->lib);
		set_env(c, "HUGEPOLICY_BACKEND", backend);
		set_env(c, "HUGEPOLICY_PAGES", pages);
	}
	return c;
}

/* the path of soname where the loader's default search finds it, or "" */
static void find_lib(const char *soname, char *out, size_t cap)
{
	static const char *const dirs[] = { "/lib/" HP_MULTIARCH, "/usr/lib/" HP_MULTIARCH, "/lib64",
					    "/usr/lib64", "/lib", "/usr/lib", "/usr/local/lib" };
	out[0] = '\0';
	for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
		snprintf(out, cap, "%s/%s", dirs[i], soname);
		if (access(out, R_OK) == 0)
			return;
	}
	out[0] = '\0';
}

/* 1: glibc has the glibc.malloc.hugetlb tunable (2.35 on) */
static int glibc_has_hugetlb_tunable(void)
{
	int major = 0, minor = 0;
	return sscanf(gnu_get_libc_version(), "%d.%d", &major, &minor) == 2 &&
	       (major > 2 || (major == 2 && minor >= 35));
}

static void peers(struct tune_state *s, const char *mi_line, const char *mi_path, const struct hp_plan *thp)
{
	static const char *const names[] = { "native-jemalloc", "native-mimalloc", "native-glibc" };
	for (int k = 0; k < 3; k++) {
		char name[64], lib[512] = "";
		snprintf(name, sizeof name, "%s/thp", names[k]);
		if (!in_list(s->o.backends, names[k]))
			continue;
		if (!in_list(s->o.modes, "thp")) {
			skip(s, name, "a peer's huge-page form is thp, and --modes has no thp");
			continue;
		}
		if (thp->pages != HP_PAGES_THP) {
			skip(s, name, "THP is not available here: %s", thp->pages_reason);
			continue;
		}
		if (k == 0)
			find_lib("libjemalloc.so.2", lib, sizeof lib);
		if (k == 1)
			hp_strlcpy(lib, mi_path, sizeof lib);
		if (k < 2 && !lib[0]) {
			skip(s, name, "%s", k == 0 ? "libjemalloc.so.2 is not installed (Debian: libjemalloc2)"
				       : mi_line);
			continue;
		}
		if (k == 2 && !glibc_has_hugetlb_tunable()) {
			skip(s, name, "glibc %s has no glibc.malloc.hugetlb tunable (2.35 on)", gnu_get_libc_version());
			continue;
		}
		struct tune_config *c = add(s, names[k], "thp", 0);
		if (!c)
			return;
		if (k == 0) {
			set_env(c, "LD_PRELOAD", lib);
			set_env(c, "MALLOC_CONF", "thp:always,metadata_thp:always");
		} else if (k == 1) {
			set_env(c, "LD_PRELOAD", lib);
			set_env(c, "MIMALLOC_LARGE_OS_PAGES", "1");
			set_env(c, "MIMALLOC_ALLOW_LARGE_OS_PAGES", "1");
		} else {
			set_env(c, "GLIBC_TUNABLES", "glibc.malloc.hugetlb=1");
		}
	}
}

int tune_lists_check(const struct tune_opts *o)
{
	return check_list("--backends", o->backends, known_backends, 6) ||
	       check_list("--modes", o->modes, known_modes, 4) ? 2 : 0;
}

void tune_configs(struct tune_state *s)
{
	struct hp_probe p;
	hp_probe_read(&p);
	char mi[4096], mi_path[512] = "";
	hp_cli_mimalloc_line(mi, sizeof mi);
	const char *lp = strrchr(mi, '('), *rp = strrchr(mi, ')');
	if (strncmp(mi, "not found", 9) != 0 && lp && rp > lp)
		snprintf(mi_path, sizeof mi_path, "%.*s", (int)(rp - lp - 1), lp + 1);
	add(s, "system", "off", 1);     /* the baseline, always */
	struct hp_plan thp_plan;
	for (int b = 0; b < HP_BACKEND_COUNT; b++) {
		const char *bn = hp_backend_name(b);
		if (!in_list(s->o.backends, bn))
			continue;
		if (b == HP_BACKEND_MIMALLOC && !mi_path[0]) {
			skip(s, "mimalloc/*", "libmimalloc.so.2 %s", mi);
			continue;
		}
		for (int m = 0; m < HP_PAGES_COUNT; m++) {
			char name[64];
			snprintf(name, sizeof name, "%s/%s", bn, hp_pages_name(m));
			if ((b == HP_BACKEND_SYSTEM && m == HP_PAGES_OFF) || !in_list(s->o.modes, hp_pages_name(m)))
				continue;
			struct hp_options o;
			struct hp_plan pl;
			hp_options_defaults(&o);
			o.backend = b, o.pages = m;
			hp_plan_make(&o, &p, &pl);
			if ((m == HP_PAGES_THP || m == HP_PAGES_HUGETLB) && pl.pages != m) {
				/* the reason up to what the plan falls back to */
				const char *cut = strstr(pl.pages_reason, "; using ");
				skip(s, name, "%.*s", cut ? (int)(cut - pl.pages_reason) : (int)sizeof pl.pages_reason,
				     pl.pages_reason);
				continue;
			}
			if (!add(s, bn, hp_pages_name(m), 1))
				skip(s, name, "more than %d configurations", TUNE_MAX_CONFIGS);
		}
	}
	struct hp_options o;
	hp_options_defaults(&o);
	o.backend = HP_BACKEND_SYSTEM, o.pages = HP_PAGES_THP;
	hp_plan_make(&o, &p, &thp_plan);
	peers(s, mi, mi_path, &thp_plan);
}

void tune_env_line(const struct tune_config *c, struct hp_buf *b)
{
	for (int k = 0; k < c->nenv; k++) {
		hp_buf_printf(b, "%s%s=", k ? " " : "", c->env[k][0]);
		hp_cli_quote(b, c->env[k][1]);
	}
}

void tune_run_line(const struct tune_state *s, const struct tune_config *c, struct hp_buf *b)
{
	hp_buf_printf(b, "hugepolicy run --backend %s --pages %s --", c->backend, c->pages);
	for (char **a = s->cmd; *a; a++) {
		hp_buf_printf(b, " ");
		hp_cli_quote(b, *a);
	}
}

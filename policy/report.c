/*
 * report.c - everything hugepolicy prints: one-line messages, the probe
 * (text/JSON) and the stats report (text/JSON).  Output may happen before
 * main or inside malloc, so it uses fixed buffers, vsnprintf with integer
 * and string conversions only, and write(2) - never stdio streams (the habit
 * of mimalloc's _mi_fputs / jemalloc's malloc_write).
 */
#define _GNU_SOURCE
#include "hp_policy.h"
#include "hugepolicy.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int hp_write_all(int fd, const char *s, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, s, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return errno;
		}
		s += w;
		n -= (size_t)w;
	}
	return 0;
}

void hp_strlcpy(char *dst, const char *src, size_t cap)
{
	size_t n = strlen(src);
	if (cap == 0)
		return;
	if (n >= cap)
		n = cap - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

void hp_buf_printf(struct hp_buf *b, const char *fmt, ...)
{
	if (b->len + 1 >= b->cap)
		return;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	b->len += (size_t)n;
	if (b->len >= b->cap)
		b->len = b->cap - 1;
}

const char *hp_program(void)
{
	return program_invocation_short_name ? program_invocation_short_name : "?";
}

void hp_say(const char *fmt, ...)
{
	char line[512];
	int saved = errno;
	/* "hugepolicy[python3 1234]: " - children inherit the environment, so
	 * every line names its process */
	int pn = snprintf(line, sizeof line / 2, "hugepolicy[%s %d]: ", hp_program(), (int)getpid());
	size_t pre = pn > 0 ? (size_t)pn : 0;
	if (pre >= sizeof line / 2)
		pre = sizeof line / 2 - 1;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(line + pre, sizeof line - pre - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	size_t len = pre + (size_t)n;
	if (len > sizeof line - 2)
		len = sizeof line - 2;
	line[len++] = '\n';
	hp_write_all(2, line, len);
	errno = saved;
}

/* ---- probe ---- */

static const char *auto_choice(const struct hp_probe *p, int backend, char *why, size_t cap)
{
	struct hp_options o;
	struct hp_plan pl;
	hp_options_defaults(&o);
	o.backend = backend;
	o.pages = HP_PAGES_AUTO;
	hp_plan_make(&o, p, &pl);
	hp_strlcpy(why, pl.pages_reason, cap);
	return hp_pages_name(pl.pages);
}

void hp_json_str(struct hp_buf *b, const char *s)
{
	hp_buf_printf(b, "\"");
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\') hp_buf_printf(b, "\\%c", c);
		else if (c < 0x20) hp_buf_printf(b, "\\u%04x", c);
		else hp_buf_printf(b, "%c", c);
	}
	hp_buf_printf(b, "\"");
}

void hp_probe_format(const struct hp_probe *p, int json, struct hp_buf *b)
{
	char why[256];
	if (!json) {
		hp_buf_printf(b, "kernel            %s\n", p->kernel);
		hp_buf_printf(b, "THP enabled       %s%s\n", hp_thp_name(p->thp_enabled),
			      p->thp_process_off ? " (but disabled for this process: PR_SET_THP_DISABLE)" : "");
		hp_buf_printf(b, "THP defrag        %s\n", p->thp_defrag[0] ? p->thp_defrag : "missing");
		hp_buf_printf(b, "max_ptes_none     %d\n", p->max_ptes_none);
		hp_buf_printf(b, "NUMA nodes        %d\n", p->numa_nodes);
		hp_buf_printf(b, "cgroup            %s\n", p->cgroup[0] ? p->cgroup : "(unknown)");
		hp_buf_printf(b, "hugetlb pools     page size   total    free    rsvd    surp  available  cgroup max\n");
		for (int i = 0; i < p->npools; i++) {
			const struct hp_pool *q = &p->pools[i];
			char cg[32];
			struct hp_buf cb = { cg, sizeof cg, 0 };
			if (q->cg_max >= 0) hp_buf_printf(&cb, "%lld B", (long long)q->cg_max);
			else hp_buf_printf(&cb, "none");
			hp_buf_printf(b, "                  %6llu kB %7llu %7llu %7llu %7llu %10llu  %s\n",
				      (unsigned long long)(q->page_size >> 10), (unsigned long long)q->total,
				      (unsigned long long)q->free, (unsigned long long)q->resv,
				      (unsigned long long)q->surp, (unsigned long long)hp_pool_available(q), cg);
		}
		for (int be = 0; be < HP_BACKEND_COUNT; be++) {
			const char *c = auto_choice(p, be, why, sizeof why);
			hp_buf_printf(b, "auto (%-8s)   %s: %s\n", hp_backend_name(be), c, why);
		}
		return;
	}
	hp_buf_printf(b, "{\"kernel\":");
	hp_json_str(b, p->kernel);
	hp_buf_printf(b, ",\"thp\":{\"enabled\":\"%s\",\"defrag\":", hp_thp_name(p->thp_enabled));
	hp_json_str(b, p->thp_defrag[0] ? p->thp_defrag : "missing");
	hp_buf_printf(b, ",\"max_ptes_none\":%d,\"process_disabled\":%s},\"numa_nodes\":%d,\"cgroup\":",
		      p->max_ptes_none, p->thp_process_off ? "true" : "false", p->numa_nodes);
	hp_json_str(b, p->cgroup);
	hp_buf_printf(b, ",\"hugetlb_pools\":[");
	for (int i = 0; i < p->npools; i++) {
		const struct hp_pool *q = &p->pools[i];
		hp_buf_printf(b, "%s{\"page_size\":%llu,\"total\":%llu,\"free\":%llu,\"reserved\":%llu,"
			      "\"surplus\":%llu,\"available\":%llu,\"cgroup_max\":%lld,\"cgroup_current\":%lld}",
			      i ? "," : "", (unsigned long long)q->page_size, (unsigned long long)q->total,
			      (unsigned long long)q->free, (unsigned long long)q->resv,
			      (unsigned long long)q->surp, (unsigned long long)hp_pool_available(q),
			      (long long)q->cg_max, (long long)q->cg_current);
	}
	hp_buf_printf(b, "],\"auto\":{");
	for (int be = 0; be < HP_BACKEND_COUNT; be++) {
		const char *c = auto_choice(p, be, why, sizeof why);
		hp_buf_printf(b, "%s\"%s\":{\"pages\":\"%s\",\"reason\":", be ? "," : "", hp_backend_name(be), c);
		hp_json_str(b, why);
		hp_buf_printf(b, "}");
	}
	hp_buf_printf(b, "}}\n");
}

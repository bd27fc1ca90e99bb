/*
 * tune_output.c - what `hugepolicy tune` prints and writes: the table of
 * ratios to the baseline with their intervals, the method and output
 * lines, the recommendation; the same as one JSON object; every run as
 * CSV; the main metric's ratios as an SVG chart.
 * Reads a tune_state whose intervals tune_compute has filled; changes
 * nothing in it.
 */
#define _GNU_SOURCE
#include "hp_cli.h"
#include "hp_tune.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const unit[TM_COUNT] = { "s", "s", "MiB", "", "" };
static const char *const label[TM_COUNT] = { "wall", "cpu", "peak RSS+hugetlb", "minor faults", "metric" };

static int metrics_shown(const struct tune_state *s)
{
	return s->o.metric_re ? TM_COUNT : TM_VALUE;
}

/* the median of c's ok runs on metric m, NAN if none */
static double cell_median(const struct tune_state *s, const struct tune_config *c, int m)
{
	double v[TUNE_MAX_ROUNDS];
	int n = 0;
	for (int r = 0; r < s->rounds; r++)
		if (c->runs[r].ok)
			v[n++] = c->runs[r].v[m];
	return n ? tune_median(v, n) : NAN;
}

static int run_count(const struct tune_state *s)
{
	int n = 0;
	for (int c = 0; c < s->nconf; c++)
		for (int r = 0; r < s->rounds; r++)
			n += s->conf[c].runs[r].done;
	return n;
}

/* the table's order: the baseline, then by the main ratio, those without one last */
static void sorted(const struct tune_state *s, int *idx)
{
	int by = s->o.by;
	for (int c = 0; c < s->nconf; c++)
		idx[c] = c;
	for (int i = 2; i < s->nconf; i++)
		for (int j = i; j > 1; j--) {
			const struct tune_ci *a = &s->conf[idx[j - 1]].ci[by], *b = &s->conf[idx[j]].ci[by];
			double ka = a->n ? a->med : INFINITY, kb = b->n ? b->med : INFINITY;
			if (s->o.higher_better)
				ka = -ka, kb = -kb;
			if (!(kb < ka))
				break;
			int t = idx[j];
			idx[j] = idx[j - 1];
			idx[j - 1] = t;
		}
}

static void ratio_cell(char *buf, size_t cap, const struct tune_config *c, int m, int baseline)
{
	const struct tune_ci *ci = &c->ci[m];
	if (baseline)
		snprintf(buf, cap, "1");
	else if (!ci->n)
		snprintf(buf, cap, "-");
	else if (ci->n < 2)
		snprintf(buf, cap, "%.*f", ci->med < 0.095 ? 3 : 2, ci->med);
	else                    /* 3 decimals where 2 would round a ratio to 0.0x */
		snprintf(buf, cap, "%.*f [%.*f, %.*f]", ci->med < 0.095 ? 3 : 2, ci->med, ci->lo < 0.095 ? 3 : 2,
			 ci->lo, ci->hi < 0.095 ? 3 : 2, ci->hi);
}

static void value_cell(char *buf, size_t cap, double v, int m)
{
	if (isnan(v))
		snprintf(buf, cap, "-");
	else if (m == TM_FAULTS || (m == TM_VALUE && fabs(v) >= 1000))
		snprintf(buf, cap, "%.0f", v);
	else if (m == TM_MEM)
		snprintf(buf, cap, "%.1f", v);
	else
		snprintf(buf, cap, "%.3f", v);
}

static void recommendation(const struct tune_state *s, FILE *f)
{
	int by = s->o.by, pick = tune_pick(s, by, s->o.higher_better);
	if (pick < 0) {
		fprintf(f, "recommendation: none - no configuration is resolvably better than %s on %s "
			"(no interval lies wholly %s 1%s)\n", s->conf[0].name, tune_metric_name[by],
			s->o.higher_better ? "above" : "below",
			s->rounds < 2 ? "; fewer than 2 rounds give no interval" : "; more rounds may resolve one");
		return;
	}
	const struct tune_config *c = &s->conf[pick];
	char text[8192];
	struct hp_buf b = { text, sizeof text, 0 };
	text[0] = '\0';
	fprintf(f, "recommendation: %s - %s %.3f [%.3f, %.3f] of %s\n", c->name, tune_metric_name[by],
		c->ci[by].med, c->ci[by].lo, c->ci[by].hi, s->conf[0].name);
	tune_env_line(c, &b);
	fprintf(f, "  environment: %s\n", text);
	if (c->hugepolicy) {
		b.len = 0, text[0] = '\0';
		tune_run_line(s, c, &b);
		fprintf(f, "  run:         %s\n", text);
	} else {
		fprintf(f, "  run:         (a native peer, without hugepolicy: set the environment above)\n");
	}
}

void tune_print_table(const struct tune_state *s, FILE *f)
{
	int idx[TUNE_MAX_CONFIGS], nm = metrics_shown(s), by = s->o.by;
	sorted(s, idx);
	fprintf(f, "hugepolicy tune: %d round%s x %d configurations; each cell: the median of the per-round\n"
		"ratios to %s [bootstrap 95 %% interval]; %s is better\n", s->rounds, s->rounds == 1 ? "" : "s",
		s->nconf, s->conf[0].name, s->o.higher_better && by == TM_VALUE ? "higher" : "lower");
	char head[64];
	snprintf(head, sizeof head, "%s%s%s", label[by], unit[by][0] ? " " : "", unit[by]);
	fprintf(f, "\n%-20s %10s", "configuration", head);
	for (int m = 0; m < nm; m++)
		fprintf(f, m + 1 < nm ? "  %-17s" : "  %s", tune_metric_name[m]);
	fprintf(f, "\n");
	for (int i = 0; i < s->nconf; i++) {
		const struct tune_config *c = &s->conf[idx[i]];
		char cell[64];
		value_cell(cell, sizeof cell, cell_median(s, c, by), by);
		if (c->failed)
			snprintf(cell + strlen(cell), sizeof cell - strlen(cell), " FAIL %d", c->failed);
		fprintf(f, "%-20s %10s", c->name, cell);
		for (int m = 0; m < nm; m++) {
			ratio_cell(cell, sizeof cell, c, m, idx[i] == 0);
			fprintf(f, m + 1 < nm ? "  %-17s" : "  %s", cell);
		}
		fprintf(f, "\n");
	}
	fprintf(f, "\n");
	int busy = 0, n = run_count(s);
	for (int c = 0; c < s->nconf; c++)
		for (int r = 0; r < s->rounds; r++)
			busy += s->conf[c].runs[r].done && s->conf[c].runs[r].others_cpus >= TUNE_QUIET_CPUS;
	fprintf(f, "method: %d runs, the configurations in a shuffled order each round; memory %s%s%s; quiet: ", n,
		s->settled ? "settled before each run (sync, drop_caches=1, compact_memory)" : "not settled (",
		s->settled ? "" : s->settle_why, s->settled ? "" : ")");
	if (busy || s->quiet_start[0])
		fprintf(f, "NO (%d of %d runs had other processes above %.2f CPUs%s%s)\n", busy, n, TUNE_QUIET_CPUS,
			s->quiet_start[0] ? "; before the first run: " : "", s->quiet_start);
	else
		fprintf(f, "yes\n");
	for (int c = 0; c < s->nconf; c++)
		for (int r = 0; r < s->rounds; r++)
			if (s->conf[c].runs[r].done && !s->conf[c].runs[r].ok)
				fprintf(f, "failed: %s round %d: %s\n", s->conf[c].name, r + 1, s->conf[c].runs[r].error);
	if (s->o.check_output) {
		int differ = 0;
		for (int c = 0; c < s->nconf; c++)
			if (s->conf[c].out_differs)
				fprintf(f, "%s%s", differ++ ? ", " : "output: DIFFERS from the first run's in ",
					s->conf[c].name);
		if (differ)
			fprintf(f, " (those are never recommended)\n");
		else
			fprintf(f, "output: identical in every run (%llu bytes of standard output)\n",
				(unsigned long long)s->conf[0].runs[0].out_len);
	}
	if (s->interrupted)
		fprintf(f, "interrupted: the table has the %d complete round%s\n", s->rounds, s->rounds == 1 ? "" : "s");
	recommendation(s, f);
}

static void json_num(struct hp_buf *b, double v)
{
	if (isfinite(v))
		hp_buf_printf(b, "%.6g", v);
	else
		hp_buf_printf(b, "null");
}

/* ,"name":v */
static void json_field(struct hp_buf *b, const char *name, double v)
{
	hp_buf_printf(b, ",\"%s\":", name);
	json_num(b, v);
}

static void json_ci(struct hp_buf *b, const struct tune_ci *ci)
{
	if (!ci->n) {
		hp_buf_printf(b, "null");
		return;
	}
	hp_buf_printf(b, "{\"rounds\":%d", ci->n);
	json_field(b, "median", ci->med);
	json_field(b, "lo", ci->lo);
	json_field(b, "hi", ci->hi);
	hp_buf_printf(b, "}");
}

static void json_config(const struct tune_state *s, const struct tune_config *c, struct hp_buf *b, char *tmp,
			size_t cap)
{
	hp_buf_printf(b, "{\"name\":");
	hp_json_str(b, c->name);
	hp_buf_printf(b, ",\"hugepolicy\":%s,\"environment\":{", c->hugepolicy ? "true" : "false");
	for (int k = 0; k < c->nenv; k++) {
		hp_buf_printf(b, "%s", k ? "," : "");
		hp_json_str(b, c->env[k][0]);
		hp_buf_printf(b, ":");
		hp_json_str(b, c->env[k][1]);
	}
	hp_buf_printf(b, "},\"run\":");
	struct hp_buf t = { tmp, cap, 0 };
	tmp[0] = '\0';
	if (c->hugepolicy) {
		tune_run_line(s, c, &t);
		hp_json_str(b, tmp);
	} else {
		hp_buf_printf(b, "null");
	}
	hp_buf_printf(b, ",\"failed\":%d,\"output_differs\":%s,\"ratios\":{", c->failed,
		      c->out_differs ? "true" : "false");
	for (int m = 0; m < metrics_shown(s); m++) {
		hp_buf_printf(b, "%s\"%s\":", m ? "," : "", tune_metric_name[m]);
		json_ci(b, &c->ci[m]);
	}
	hp_buf_printf(b, "},\"runs\":[");
	for (int r = 0; r < s->rounds; r++) {
		const struct tune_run *u = &c->runs[r];
		hp_buf_printf(b, "%s{\"round\":%d,\"order\":%d,\"ok\":%s,\"exit_code\":%d,\"error\":", r ? "," : "",
			      r + 1, u->order, u->ok ? "true" : "false", u->exit_code);
		hp_json_str(b, u->error);
		json_field(b, "wall_s", u->v[TM_WALL]);
		json_field(b, "user_s", u->user_s);
		json_field(b, "sys_s", u->sys_s);
		json_field(b, "maxrss_mib", u->maxrss_mib);
		json_field(b, "peak_mem_mib", u->v[TM_MEM]);
		json_field(b, "peak_huge_mib", u->peak_huge_mib);
		json_field(b, "minflt", u->v[TM_FAULTS]);
		json_field(b, "metric", s->o.metric_re ? u->v[TM_VALUE] : NAN);
		json_field(b, "others_cpus", u->others_cpus);
		hp_buf_printf(b, ",\"output_bytes\":%llu}", (unsigned long long)u->out_len);
	}
	hp_buf_printf(b, "]}");
}

void tune_print_json(const struct tune_state *s, FILE *f)
{
	size_t cap = 1u << 22;
	char *text = malloc(cap), *tmp = malloc(cap / 4);
	if (!text || !tmp) {
		free(text);
		free(tmp);
		fprintf(f, "null\n");
		return;
	}
	struct hp_buf b = { text, cap, 0 };
	text[0] = '\0';
	hp_buf_printf(&b, "{\"command\":[");
	for (char **a = s->cmd; *a; a++) {
		hp_buf_printf(&b, "%s", a > s->cmd ? "," : "");
		hp_json_str(&b, *a);
	}
	hp_buf_printf(&b, "],\"by\":\"%s\",\"higher_is_better\":%s,\"rounds\":%d,\"interrupted\":%s,"
		      "\"baseline\":", tune_metric_name[s->o.by], s->o.higher_better ? "true" : "false", s->rounds,
		      s->interrupted ? "true" : "false");
	hp_json_str(&b, s->conf[0].name);
	hp_buf_printf(&b, ",\"settled\":%s,\"quiet_before\":", s->settled ? "true" : "false");
	hp_json_str(&b, s->quiet_start[0] ? s->quiet_start : "quiet");
	hp_buf_printf(&b, ",\"check_output\":%s,\"skipped\":[", s->o.check_output ? "true" : "false");
	for (int k = 0; k < s->nskip; k++) {
		hp_buf_printf(&b, "%s{\"name\":", k ? "," : "");
		hp_json_str(&b, s->skipped[k][0]);
		hp_buf_printf(&b, ",\"reason\":");
		hp_json_str(&b, s->skipped[k][1]);
		hp_buf_printf(&b, "}");
	}
	hp_buf_printf(&b, "],\"configurations\":[");
	for (int c = 0; c < s->nconf; c++) {
		hp_buf_printf(&b, "%s", c ? "," : "");
		json_config(s, &s->conf[c], &b, tmp, cap / 4);
	}
	int pick = tune_pick(s, s->o.by, s->o.higher_better);
	hp_buf_printf(&b, "],\"recommendation\":");
	if (pick < 0) {
		hp_buf_printf(&b, "null");
	} else {
		struct hp_buf t = { tmp, cap / 4, 0 };
		tmp[0] = '\0';
		tune_env_line(&s->conf[pick], &t);
		hp_buf_printf(&b, "{\"name\":");
		hp_json_str(&b, s->conf[pick].name);
		hp_buf_printf(&b, ",\"environment\":");
		hp_json_str(&b, tmp);
		hp_buf_printf(&b, ",\"run\":");
		t.len = 0, tmp[0] = '\0';
		if (s->conf[pick].hugepolicy) {
			tune_run_line(s, &s->conf[pick], &t);
			hp_json_str(&b, tmp);
		} else {
			hp_buf_printf(&b, "null");
		}
		hp_buf_printf(&b, "}");
	}
	hp_buf_printf(&b, "}\n");
	fputs(text, f);
	free(text);
	free(tmp);
}

int tune_write_csv(const struct tune_state *s, const char *path)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	fprintf(f, "configuration,round,order,ok,exit_code,wall_s,cpu_s,user_s,sys_s,maxrss_mib,peak_mem_mib,"
		"peak_huge_mib,minflt,metric,others_cpus,output_bytes\n");
	for (int c = 0; c < s->nconf; c++)
		for (int r = 0; r < s->rounds; r++) {
			const struct tune_run *u = &s->conf[c].runs[r];
			if (!u->done)
				continue;
			fprintf(f, "%s,%d,%d,%d,%d,%.6f,%.6f,%.6f,%.6f,%.3f,%.3f,%.3f,%.0f,", s->conf[c].name, r + 1,
				u->order, u->ok, u->exit_code, u->v[TM_WALL], u->v[TM_CPU], u->user_s, u->sys_s,
				u->maxrss_mib, u->v[TM_MEM], u->peak_huge_mib, u->v[TM_FAULTS]);
			if (s->o.metric_re && isfinite(u->v[TM_VALUE]))
				fprintf(f, "%.9g", u->v[TM_VALUE]);
			fprintf(f, ",");
			if (u->others_cpus >= 0)
				fprintf(f, "%.3f", u->others_cpus);
			fprintf(f, ",%llu\n", (unsigned long long)u->out_len);
		}
	return fclose(f) == 0 ? 0 : -1;
}

int tune_write_svg(const struct tune_state *s, const char *path)
{
	int by = s->o.by, idx[TUNE_MAX_CONFIGS], rows = 0;
	double lo = 1, hi = 1;
	sorted(s, idx);
	for (int i = 1; i < s->nconf; i++) {
		const struct tune_ci *ci = &s->conf[idx[i]].ci[by];
		if (!ci->n)
			continue;
		rows++;
		lo = fmin(lo, ci->lo), hi = fmax(hi, ci->hi);
	}
	lo = lo * 0.95, hi = hi * 1.05;
	const int left = 190, width = 460, top = 40, step = 22;
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
#define X(v) (left + (int)(((v) - lo) / (hi - lo) * width))
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" "
		"font-size=\"12\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n", left + width + 20,
		top + rows * step + 30);
	fprintf(f, "<text x=\"10\" y=\"20\">%s: ratio to %s, median and bootstrap 95 %% interval (%d rounds)</text>\n",
		tune_metric_name[by], s->conf[0].name, s->rounds);
	fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\" stroke-dasharray=\"4\"/>\n",
		X(1.0), top - 8, X(1.0), top + rows * step);
	fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">1</text>\n", X(1.0), top + rows * step + 16);
	for (int i = 1, row = 0; i < s->nconf; i++) {
		const struct tune_config *c = &s->conf[idx[i]];
		const struct tune_ci *ci = &c->ci[by];
		if (!ci->n)
			continue;
		int y = top + row++ * step;
		int better = s->o.higher_better ? ci->lo > 1 : ci->hi < 1;
		fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>\n", left - 8, y + 12, c->name);
		fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"14\" fill=\"%s\"/>\n", X(fmin(1.0, ci->med)),
			y + 1, abs(X(ci->med) - X(1.0)), better ? "#4a8" : "#999");
		fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>\n", X(ci->lo), y + 8,
			X(ci->hi), y + 8);
		fprintf(f, "<text x=\"%d\" y=\"%d\">%.3f</text>\n", X(ci->hi) + 4, y + 12, ci->med);
	}
#undef X
	fprintf(f, "</svg>\n");
	return fclose(f) == 0 ? 0 : -1;
}

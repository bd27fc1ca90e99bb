/* report_keys.h - a test's reading of this process's text report
 * (hugepolicy_report): its keys and their values, one "  key value" line
 * each (hugepolicy(7), THE REPORT).  Header-only, for the test programs. */
#ifndef TEST_REPORT_KEYS_H
#define TEST_REPORT_KEYS_H

#include <hugepolicy.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the text report, as the process would print it at exit; "" if it fails */
static inline void report_text(char *out, size_t cap)
{
	FILE *t = tmpfile();
	out[0] = '\0';
	if (!t)
		return;
	if (hugepolicy_report(fileno(t), 0) == 0) {
		rewind(t);
		out[fread(out, 1, cap - 1, t)] = '\0';
	}
	fclose(t);
}

/* key's value in rep into val (empty for an empty string): 1, or 0 if rep
 * has no such key */
static inline int report_value(const char *rep, const char *key, char *val, size_t cap)
{
	size_t n = strlen(key);
	for (const char *s = strstr(rep, key); s; s = strstr(s + 1, key)) {
		if (s - rep < 3 || s[-1] != ' ' || s[-2] != ' ' || s[-3] != '\n' || (s[n] != ' ' && s[n] != '\n'))
			continue;
		const char *v = s + n;
		while (*v == ' ')
			v++;
		size_t len = strcspn(v, "\n");
		if (len >= cap)
			len = cap - 1;
		memcpy(val, v, len);
		val[len] = '\0';
		return 1;
	}
	val[0] = '\0';
	return 0;
}

/* a number key's value; -1 if missing or unknown */
static inline long long report_num(const char *rep, const char *key)
{
	char v[32];
	if (!report_value(rep, key, v, sizeof v) || v[0] < '0' || v[0] > '9')
		return -1;
	return strtoll(v, NULL, 10);
}

/* 1 if a string key's value holds text */
static inline int report_has(const char *rep, const char *key, const char *text)
{
	char v[1024];
	return report_value(rep, key, v, sizeof v) && strstr(v, text) != NULL;
}

/* 1 if a key's value is exactly value */
static inline int report_is(const char *rep, const char *key, const char *value)
{
	char v[1024];
	return report_value(rep, key, v, sizeof v) && strcmp(v, value) == 0;
}

#endif

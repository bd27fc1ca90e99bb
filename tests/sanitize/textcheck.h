/* textcheck.h - what hugepolicy's printed text must be, checked by the
 * sanitizer drivers and the fuzz targets: valid UTF-8 without control bytes
 * (one printable line), and JSON string literals a parser accepts. */
#ifndef TEXTCHECK_H
#define TEXTCHECK_H

#include <stddef.h>
#include <string.h>

/* Length of the well-formed UTF-8 sequence at s[0..n), 0 if none (RFC 3629). */
static inline size_t tc_utf8_len(const unsigned char *s, size_t n)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	size_t k;
	if (c < 0x80) return 1;
	if (c < 0xc2 || c > 0xf4) return 0;
	k = c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
	if (c == 0xe0) lo = 0xa0;
	if (c == 0xed) hi = 0x9f;
	if (c == 0xf0) lo = 0x90;
	if (c == 0xf4) hi = 0x8f;
	if (n < k || s[1] < lo || s[1] > hi) return 0;
	for (size_t i = 2; i < k; i++)
		if (s[i] < 0x80 || s[i] > 0xbf) return 0;
	return k;
}

/* 1: s[0..n) is valid UTF-8 with no C0 control, DEL or C1 control. */
static inline int tc_printable(const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	for (size_t i = 0; i < n;) {
		size_t k = tc_utf8_len(s + i, n - i);
		if (k == 0 || s[i] < 0x20 || s[i] == 0x7f || (k == 2 && s[i] == 0xc2 && s[i + 1] < 0xa0))
			return 0;
		i += k;
	}
	return 1;
}

static inline int tc_hex(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* 1: s[0..n) is exactly one JSON string literal (RFC 8259) in valid UTF-8. */
static inline int tc_json_string(const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	if (n < 2 || s[0] != '"')
		return 0;
	for (size_t i = 1; i < n;) {
		if (s[i] == '"')
			return i == n - 1;
		if (s[i] < 0x20)
			return 0;
		if (s[i] == '\\') {
			if (i + 1 >= n) return 0;
			unsigned char e = s[i + 1];
			if (e == 'u') {
				if (i + 5 >= n) return 0;
				for (int j = 2; j < 6; j++)
					if (!tc_hex(s[i + j])) return 0;
				i += 6;
			} else if (e == '"' || e == '\\' || e == '/' || e == 'b' || e == 'f' || e == 'n' ||
				   e == 'r' || e == 't') {
				i += 2;
			} else {
				return 0;
			}
			continue;
		}
		size_t k = tc_utf8_len(s + i, n - i);
		if (k == 0)
			return 0;
		i += k;
	}
	return 0;
}

/* One JSON value (RFC 8259) at s[*i..n), *i moved past it; depth-limited. */
static inline int tc_json_value(const char *s, size_t n, size_t *i, int depth)
{
	while (*i < n && (s[*i] == ' ' || s[*i] == '\n' || s[*i] == '\t' || s[*i] == '\r'))
		(*i)++;
	if (*i >= n || depth > 32)
		return 0;
	char c = s[*i];
	if (c == '"') {
		size_t j = *i + 1;
		while (j < n && s[j] != '"')
			j += s[j] == '\\' ? 2 : 1;
		if (j >= n || !tc_json_string(s + *i, j + 1 - *i))
			return 0;
		*i = j + 1;
		return 1;
	}
	if (c == '{' || c == '[') {
		char close = c == '{' ? '}' : ']';
		(*i)++;
		for (int first = 1;; first = 0) {
			while (*i < n && s[*i] == ' ')
				(*i)++;
			if (*i < n && s[*i] == close && first)
				return ++*i, 1;
			if (c == '{') {
				if (*i >= n || s[*i] != '"' || !tc_json_value(s, n, i, depth + 1))
					return 0;
				if (*i >= n || s[(*i)++] != ':')
					return 0;
			}
			if (!tc_json_value(s, n, i, depth + 1) || *i >= n)
				return 0;
			if (s[*i] == close)
				return ++*i, 1;
			if (s[(*i)++] != ',')
				return 0;
		}
	}
	static const char *const words[] = { "true", "false", "null" };
	for (int w = 0; w < 3; w++) {
		size_t k = strlen(words[w]);
		if (n - *i >= k && memcmp(s + *i, words[w], k) == 0)
			return *i += k, 1;
	}
	size_t j = *i;              /* -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
	if (j < n && s[j] == '-')
		j++;
	if (j >= n || s[j] < '0' || s[j] > '9')
		return 0;
	if (s[j] == '0')
		j++;
	else
		while (j < n && s[j] >= '0' && s[j] <= '9')
			j++;
	if (j < n && s[j] == '.') {
		if (++j >= n || s[j] < '0' || s[j] > '9')
			return 0;
		while (j < n && s[j] >= '0' && s[j] <= '9')
			j++;
	}
	if (j < n && (s[j] == 'e' || s[j] == 'E')) {
		if (++j < n && (s[j] == '+' || s[j] == '-'))
			j++;
		if (j >= n || s[j] < '0' || s[j] > '9')
			return 0;
		while (j < n && s[j] >= '0' && s[j] <= '9')
			j++;
	}
	*i = j;
	return 1;
}

/* 1: s[0..n) is one JSON document (trailing whitespace allowed). */
static inline int tc_json_document(const char *s, size_t n)
{
	size_t i = 0;
	if (!tc_json_value(s, n, &i, 0))
		return 0;
	while (i < n && (s[i] == ' ' || s[i] == '\n'))
		i++;
	return i == n;
}

#endif

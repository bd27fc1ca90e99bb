// cxx_local_module.cc - C++ code that a C host (test_cxx_local.c, or Python's
// ctypes) loads with dlopen(RTLD_LOCAL), as Python loads C++ extensions: its
// libstdc++ is then not in the global scope.  cxx_local_run(CASE) limits the
// address space (RLIMIT_AS = what is mapped now + 3 GiB, so big requests fail
// on every backend, even jemalloc and mimalloc that map with MAP_NORESERVE),
// checks one out-of-memory behaviour of operator new, and returns the number
// of failed checks.
#include <sys/resource.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <new>

static int failures;
#define CHECK(c) do { if (!(c)) { std::fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #c); failures++; } } while (0)

struct alignas(64) Line { char bytes[64]; };

static const std::size_t GiB = std::size_t(1) << 30;
static const std::size_t BUDGET = 3 * GiB;
// sizes that fail everywhere: refused by hugepolicy (> PTRDIFF_MAX), or
// beyond the address-space budget
static volatile std::size_t over_ptrdiff = std::size_t(PTRDIFF_MAX) + 1;
static volatile std::size_t big46 = std::size_t(1) << 46;
static volatile std::size_t big62 = std::size_t(1) << 62;

static bool limit_address_space()
{
	unsigned long pages = 0;
	std::FILE *f = std::fopen("/proc/self/statm", "r");
	if (!f || std::fscanf(f, "%lu", &pages) != 1) {
		if (f)
			std::fclose(f);
		return false;
	}
	std::fclose(f);
	struct rlimit rl;
	if (getrlimit(RLIMIT_AS, &rl) != 0)
		return false;
	rl.rlim_cur = pages * static_cast<rlim_t>(sysconf(_SC_PAGESIZE)) + BUDGET;
	return setrlimit(RLIMIT_AS, &rl) == 0;
}

// allocations the compiler may not elide ([expr.new]/10 lets it drop a
// new-expression whose result does not escape; GCC drops new/delete pairs,
// clang -O2 folds `new (std::nothrow) ... == nullptr` to false)
template <class T> static T *kept(T *p)
{
	__asm__ volatile("" : "+r"(p) : : "memory");
	return p;
}

template <class T> static void drop(T *p)
{
	__asm__ volatile("" : : "r"(p) : "memory");
	delete[] p;
}

static void drop_raw(void *p)
{
	__asm__ volatile("" : : "r"(p) : "memory");
	::operator delete(p);
}

template <class F> static bool throws_bad_alloc(F f)
{
	try {
		f();
	} catch (const std::bad_alloc &) {
		return true;
	}
	return false;
}

// handlers: each counts its calls
static int calls;
static char *reserve;

static void free_reserve()
{
	calls++;
	if (!reserve)
		throw std::bad_alloc();         // nothing left to give: end the loop
	delete[] reserve;
	reserve = nullptr;
}

static void throw_bad_alloc()
{
	calls++;
	throw std::bad_alloc();
}

static void uninstall_self()
{
	calls++;
	std::set_new_handler(nullptr);  // the loop ends with std::bad_alloc
}

// throwing new of every kind, sizes no backend can give
static void case_bad_alloc()
{
	CHECK(throws_bad_alloc([] { drop(new char[over_ptrdiff]); }));
	CHECK(throws_bad_alloc([] { drop(new char[big46]); }));
	CHECK(throws_bad_alloc([] { drop(new char[big62]); }));
	CHECK(throws_bad_alloc([] { drop_raw(::operator new(big46)); }));
	CHECK(throws_bad_alloc([] { drop(new Line[big62 / sizeof(Line)]); }));      // aligned new[]
	CHECK(throws_bad_alloc([] { drop(new Line[big46 / sizeof(Line)]); }));
	CHECK(throws_bad_alloc([] {
		::operator delete(::operator new(big46, std::align_val_t(64)), std::align_val_t(64));
	}));
	CHECK(throws_bad_alloc([] {
		::operator delete(::operator new(over_ptrdiff, std::align_val_t(4096)), std::align_val_t(4096));
	}));
	char *small = new char[100];            // the process carries on
	std::memset(small, 1, 100);
	delete[] small;
}

// nothrow new of every kind returns nullptr (no handler installed)
static void case_nothrow()
{
	CHECK(kept(new (std::nothrow) char[big46]) == nullptr);
	CHECK(kept(new (std::nothrow) char[over_ptrdiff]) == nullptr);
	CHECK(kept(new (std::nothrow) Line[big62 / sizeof(Line)]) == nullptr);
	CHECK(::operator new(big62, std::nothrow) == nullptr);
	CHECK(::operator new(big46, std::align_val_t(64), std::nothrow) == nullptr);
	CHECK(::operator new[](big46, std::align_val_t(128), std::nothrow) == nullptr);
}

// a handler that frees a reserve makes the retry succeed: plain and aligned
static void case_handler_frees_reserve()
{
	std::set_new_handler(free_reserve);
	reserve = kept(new char[2 * GiB]);     // untouched: address space only
	calls = 0;
	char *p = kept(new char[GiB + GiB / 2]);       // 2 + 1.5 GiB > budget: handler, retry
	CHECK(p != nullptr && calls == 1);
	delete[] p;

	reserve = kept(new char[2 * GiB]);
	calls = 0;
	Line *q = kept(new Line[(GiB + GiB / 2) / sizeof(Line)]);
	CHECK(q != nullptr && calls == 1 && (reinterpret_cast<std::uintptr_t>(q) & 63) == 0);
	delete[] q;
	std::set_new_handler(nullptr);
}

// a handler that throws std::bad_alloc: called once, the exception reaches us
static void case_handler_throws()
{
	std::set_new_handler(throw_bad_alloc);
	calls = 0;
	CHECK(throws_bad_alloc([] { drop(new char[big46]); }) && calls == 1);
	calls = 0;
	CHECK(throws_bad_alloc([] { drop(new Line[big46 / sizeof(Line)]); }) && calls == 1);
	std::set_new_handler(nullptr);
}

// a handler that uninstalls itself: called once, then std::bad_alloc
static void case_handler_uninstalls()
{
	std::set_new_handler(uninstall_self);
	calls = 0;
	CHECK(throws_bad_alloc([] { drop(new char[big46]); }) && calls == 1);
	CHECK(std::get_new_handler() == nullptr);
}

// nothrow new calls the handler too: a throwing one ends in nullptr, one that
// frees memory ends in a block
static void case_nothrow_handler()
{
	std::set_new_handler(throw_bad_alloc);
	calls = 0;
	CHECK(kept(new (std::nothrow) char[big46]) == nullptr && calls == 1);
	calls = 0;
	CHECK(::operator new(big46, std::align_val_t(64), std::nothrow) == nullptr && calls == 1);

	std::set_new_handler(free_reserve);
	reserve = kept(new char[2 * GiB]);
	calls = 0;
	char *p = kept(new (std::nothrow) char[GiB + GiB / 2]);
	CHECK(p != nullptr && calls == 1);
	delete[] p;
	calls = 0;
	CHECK(kept(new (std::nothrow) char[big46]) == nullptr && calls == 1);  // reserve gone: handler throws
	std::set_new_handler(nullptr);
}

static const struct {
	const char *name;
	void (*run)();
} cases[] = {
	{ "bad_alloc", case_bad_alloc },
	{ "nothrow", case_nothrow },
	{ "handler_frees_reserve", case_handler_frees_reserve },
	{ "handler_throws", case_handler_throws },
	{ "handler_uninstalls", case_handler_uninstalls },
	{ "nothrow_handler", case_nothrow_handler },
};

extern "C" int cxx_local_run(const char *name)
{
	if (!limit_address_space()) {
		std::fprintf(stderr, "cxx_local_module: cannot set RLIMIT_AS\n");
		return 1;
	}
	for (const auto &c : cases)
		if (std::strcmp(c.name, name) == 0) {
			c.run();
			std::printf("cxx_local_module %s: %s (%d failed checks)\n", name,
				    failures ? "FAIL" : "ok", failures);
			std::fflush(stdout);
			return failures;
		}
	std::fprintf(stderr, "cxx_local_module: no case %s\n", name);
	return 1;
}

// for a C caller: install a handler that counts and throws; read the count
extern "C" void cxx_local_install_throwing_handler()
{
	calls = 0;
	std::set_new_handler(throw_bad_alloc);
}

extern "C" int cxx_local_handler_calls()
{
	return calls;
}

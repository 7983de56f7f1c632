/* lazy_net.c — libcurl and libmicrohttpd loaded on first use, for the
 * gauntlet binary only.
 *
 * Linking the two libraries into the binary makes the dynamic loader open and
 * relocate their whole dependency trees (TLS, Kerberos, LDAP, ssh, ...: about
 * 25 objects, most of a one-shot command's start-up) before `main`, although
 * `parse`, `validate`, `strict`, `lint`, `transform` and `run` against the
 * in-process reference never make an HTTP request. This file defines every
 * libcurl and libmicrohttpd function the code calls; each one opens the real
 * library with dlopen the first time any of them runs and forwards the call.
 * The binary is linked without -lcurl -lmicrohttpd (Makefile: GAUNTLET_LDLIBS);
 * libgauntlet, the adapters, the tests and the benchmarks link them as usual
 * and never see this file.
 *
 * Not for: anything but forwarding. A library that cannot be opened is
 * reported once on stderr and every call then fails the way the library
 * itself reports failure (NULL handle, CURLE_FAILED_INIT, MHD_NO), which the
 * callers already handle. A new libcurl or libmicrohttpd call in the code
 * shows up as an undefined symbol when the binary links: add it to the
 * tables below. */
#define CURL_DISABLE_TYPECHECK 1 /* curl_easy_setopt is a function here, not the checking macro */
#include <curl/curl.h>
#include <dlfcn.h>
#include <microhttpd.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>

#ifndef GT_CURL_SONAME
#define GT_CURL_SONAME "libcurl.so.4"
#endif
#ifndef GT_MHD_SONAME
#define GT_MHD_SONAME "libmicrohttpd.so.12"
#endif

/* X(name): every function forwarded; the pointer has the header's exact type. */
#define GT_CURL_FUNCTIONS(X)                                                                                           \
    X(curl_global_init)                                                                                                \
    X(curl_easy_init)                                                                                                  \
    X(curl_easy_setopt)                                                                                                \
    X(curl_easy_perform)                                                                                               \
    X(curl_easy_cleanup)                                                                                               \
    X(curl_easy_getinfo)                                                                                               \
    X(curl_easy_reset)                                                                                                 \
    X(curl_easy_strerror)                                                                                              \
    X(curl_easy_escape)                                                                                                \
    X(curl_free)                                                                                                       \
    X(curl_slist_append)                                                                                               \
    X(curl_slist_free_all)
#define GT_MHD_FUNCTIONS(X)                                                                                            \
    X(MHD_start_daemon_va)                                                                                             \
    X(MHD_stop_daemon)                                                                                                 \
    X(MHD_get_daemon_info)                                                                                             \
    X(MHD_get_connection_info)                                                                                         \
    X(MHD_get_connection_values)                                                                                       \
    X(MHD_lookup_connection_value)                                                                                     \
    X(MHD_queue_response)                                                                                              \
    X(MHD_create_response_from_buffer)                                                                                 \
    X(MHD_create_response_from_callback)                                                                               \
    X(MHD_add_response_header)                                                                                         \
    X(MHD_destroy_response)                                                                                            \
    X(MHD_suspend_connection)                                                                                          \
    X(MHD_resume_connection)

#define GT_POINTER(name) static __typeof__(name) *p_##name;
GT_CURL_FUNCTIONS(GT_POINTER)
GT_MHD_FUNCTIONS(GT_POINTER)

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static pthread_once_t mhd_once = PTHREAD_ONCE_INIT;
static int curl_ok, mhd_ok;

/* Open `soname` and resolve `count` symbols into `*slots[i]` (all or none);
 * 1 when all resolved, 0 (after one line on stderr) otherwise. */
static int open_library(const char *soname, const char *const *names, void **const *slots, size_t count)
{
    void *handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        fprintf(stderr, "gauntlet: cannot load %s: %s\n", soname, dlerror());
        return 0;
    }
    for (size_t i = 0; i < count; i++)
        if (dlsym(handle, names[i]) == NULL) {
            fprintf(stderr, "gauntlet: %s has no %s\n", soname, names[i]);
            return 0;
        }
    for (size_t i = 0; i < count; i++)
        *slots[i] = dlsym(handle, names[i]);
    return 1;
}

#define GT_NAME(name) #name,
#define GT_SLOT(name) (void **)&p_##name,
#define GT_COUNT(name) +1
static void load_curl(void)
{
    static const char *const names[] = {GT_CURL_FUNCTIONS(GT_NAME)};
    void **const slots[] = {GT_CURL_FUNCTIONS(GT_SLOT)};
    curl_ok = open_library(GT_CURL_SONAME, names, slots, 0 GT_CURL_FUNCTIONS(GT_COUNT));
}

static void load_mhd(void)
{
    static const char *const names[] = {GT_MHD_FUNCTIONS(GT_NAME)};
    void **const slots[] = {GT_MHD_FUNCTIONS(GT_SLOT)};
    mhd_ok = open_library(GT_MHD_SONAME, names, slots, 0 GT_MHD_FUNCTIONS(GT_COUNT));
}

static int have_curl(void)
{
    pthread_once(&curl_once, load_curl);
    return curl_ok;
}

static int have_mhd(void)
{
    pthread_once(&mhd_once, load_mhd);
    return mhd_ok;
}

/* ---- libcurl ---- */

CURLcode curl_global_init(long flags)
{
    return have_curl() ? p_curl_global_init(flags) : CURLE_FAILED_INIT;
}

CURL *curl_easy_init(void)
{
    return have_curl() ? p_curl_easy_init() : NULL;
}

/* The option number says the argument's type (curl.h, CURLOPTTYPE_*): long,
 * a pointer (object, string, slist, callback, blob) or curl_off_t. */
CURLcode curl_easy_setopt(CURL *curl, CURLoption option, ...)
{
    if (!have_curl())
        return CURLE_FAILED_INIT;
    va_list ap;
    va_start(ap, option);
    CURLcode rc;
    if (option < CURLOPTTYPE_OBJECTPOINT)
        rc = p_curl_easy_setopt(curl, option, va_arg(ap, long));
    else if (option >= CURLOPTTYPE_OFF_T && option < CURLOPTTYPE_BLOB)
        rc = p_curl_easy_setopt(curl, option, va_arg(ap, curl_off_t));
    else
        rc = p_curl_easy_setopt(curl, option, va_arg(ap, void *));
    va_end(ap);
    return rc;
}

CURLcode curl_easy_perform(CURL *curl)
{
    return have_curl() ? p_curl_easy_perform(curl) : CURLE_FAILED_INIT;
}

void curl_easy_cleanup(CURL *curl)
{
    if (have_curl())
        p_curl_easy_cleanup(curl);
}

/* Every CURLINFO_* takes one pointer to where the answer goes. */
CURLcode curl_easy_getinfo(CURL *curl, CURLINFO info, ...)
{
    if (!have_curl())
        return CURLE_FAILED_INIT;
    va_list ap;
    va_start(ap, info);
    CURLcode rc = p_curl_easy_getinfo(curl, info, va_arg(ap, void *));
    va_end(ap);
    return rc;
}

void curl_easy_reset(CURL *curl)
{
    if (have_curl())
        p_curl_easy_reset(curl);
}

const char *curl_easy_strerror(CURLcode code)
{
    return have_curl() ? p_curl_easy_strerror(code) : "libcurl could not be loaded";
}

char *curl_easy_escape(CURL *curl, const char *string, int length)
{
    return have_curl() ? p_curl_easy_escape(curl, string, length) : NULL;
}

void curl_free(void *p)
{
    if (have_curl())
        p_curl_free(p);
}

struct curl_slist *curl_slist_append(struct curl_slist *list, const char *string)
{
    return have_curl() ? p_curl_slist_append(list, string) : NULL;
}

void curl_slist_free_all(struct curl_slist *list)
{
    if (have_curl())
        p_curl_slist_free_all(list);
}

/* ---- libmicrohttpd ---- */

struct MHD_Daemon *MHD_start_daemon(unsigned int flags, uint16_t port, MHD_AcceptPolicyCallback apc, void *apc_cls,
                                    MHD_AccessHandlerCallback dh, void *dh_cls, ...)
{
    if (!have_mhd())
        return NULL;
    va_list ap;
    va_start(ap, dh_cls);
    struct MHD_Daemon *daemon = p_MHD_start_daemon_va(flags, port, apc, apc_cls, dh, dh_cls, ap);
    va_end(ap);
    return daemon;
}

void MHD_stop_daemon(struct MHD_Daemon *daemon)
{
    if (have_mhd())
        p_MHD_stop_daemon(daemon);
}

/* The info types used here take no further argument. */
const union MHD_DaemonInfo *MHD_get_daemon_info(struct MHD_Daemon *daemon, enum MHD_DaemonInfoType info_type, ...)
{
    return have_mhd() ? p_MHD_get_daemon_info(daemon, info_type) : NULL;
}

const union MHD_ConnectionInfo *MHD_get_connection_info(struct MHD_Connection *connection,
                                                        enum MHD_ConnectionInfoType info_type, ...)
{
    return have_mhd() ? p_MHD_get_connection_info(connection, info_type) : NULL;
}

int MHD_get_connection_values(struct MHD_Connection *connection, enum MHD_ValueKind kind,
                              MHD_KeyValueIterator iterator, void *iterator_cls)
{
    return have_mhd() ? p_MHD_get_connection_values(connection, kind, iterator, iterator_cls) : -1;
}

const char *MHD_lookup_connection_value(struct MHD_Connection *connection, enum MHD_ValueKind kind, const char *key)
{
    return have_mhd() ? p_MHD_lookup_connection_value(connection, kind, key) : NULL;
}

enum MHD_Result MHD_queue_response(struct MHD_Connection *connection, unsigned int status_code,
                                   struct MHD_Response *response)
{
    return have_mhd() ? p_MHD_queue_response(connection, status_code, response) : MHD_NO;
}

struct MHD_Response *MHD_create_response_from_buffer(size_t size, void *buffer, enum MHD_ResponseMemoryMode mode)
{
    return have_mhd() ? p_MHD_create_response_from_buffer(size, buffer, mode) : NULL;
}

struct MHD_Response *MHD_create_response_from_callback(uint64_t size, size_t block_size, MHD_ContentReaderCallback crc,
                                                       void *crc_cls, MHD_ContentReaderFreeCallback crfc)
{
    return have_mhd() ? p_MHD_create_response_from_callback(size, block_size, crc, crc_cls, crfc) : NULL;
}

enum MHD_Result MHD_add_response_header(struct MHD_Response *response, const char *header, const char *content)
{
    return have_mhd() ? p_MHD_add_response_header(response, header, content) : MHD_NO;
}

void MHD_destroy_response(struct MHD_Response *response)
{
    if (have_mhd())
        p_MHD_destroy_response(response);
}

void MHD_suspend_connection(struct MHD_Connection *connection)
{
    if (have_mhd())
        p_MHD_suspend_connection(connection);
}

void MHD_resume_connection(struct MHD_Connection *connection)
{
    if (have_mhd())
        p_MHD_resume_connection(connection);
}

/* guard.c — the mock's connection guard: a deadline on each request head and
 * a per-address cap that spares loopback (mock_guard.h).
 *
 * libmicrohttpd's connection timeout is an idle timeout: any byte resets it,
 * so a client trickling its headers holds a connection for as long as it
 * trickles. Its per-IP limit counts
 * every local client as one address (127.0.0.1), so one leaky local client
 * locked every other one out. This file tracks each live connection from
 * libmicrohttpd's connection notifications, closes (shutdown) one whose head
 * is not complete within the deadline, and caps connections per address for
 * non-loopback peers only. The total cap stays libmicrohttpd's.
 * Not for: HTTP itself (server.c). */
#include "mock_guard.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

typedef struct guard_conn {
    int fd;
    struct sockaddr_storage addr;
    bool loopback;
    /* when the wait for a request head began (accept, or the end of the last
     * response), or -1 while a request is being served; atomic, so that the
     * two updates of every request take no lock */
    atomic_llong waiting_since_ms;
    bool cut;                /* shut down by the guard */
    struct guard_conn *prev, *next;
} guard_conn;

struct mock_guard {
    pthread_mutex_t lock;
    pthread_cond_t wake;
    pthread_t watchdog;
    bool watching, stopping;
    long long head_timeout_ms;
    unsigned per_address;
    guard_conn *live;
    unsigned long heads_cut, refused;
};

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static bool is_loopback(const struct sockaddr *addr)
{
    if (addr->sa_family == AF_INET)
        return (ntohl(((const struct sockaddr_in *)addr)->sin_addr.s_addr) >> 24) == 127;
    if (addr->sa_family == AF_INET6) {
        const struct in6_addr *a = &((const struct sockaddr_in6 *)addr)->sin6_addr;
        if (IN6_IS_ADDR_LOOPBACK(a))
            return true;
        return IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127;
    }
    return addr->sa_family == AF_UNIX;
}

static bool same_address(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
    if (a->ss_family != b->ss_family)
        return false;
    if (a->ss_family == AF_INET)
        return ((const struct sockaddr_in *)a)->sin_addr.s_addr == ((const struct sockaddr_in *)b)->sin_addr.s_addr;
    if (a->ss_family == AF_INET6)
        return memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr, &((const struct sockaddr_in6 *)b)->sin6_addr,
                      sizeof(struct in6_addr)) == 0;
    return false;
}

static void *watch(void *arg)
{
    mock_guard *guard = arg;
    pthread_mutex_lock(&guard->lock);
    while (!guard->stopping) {
        long long now = now_ms();
        for (guard_conn *c = guard->live; c != NULL; c = c->next) {
            long long since = atomic_load(&c->waiting_since_ms);
            if (since >= 0 && !c->cut && now - since >= guard->head_timeout_ms) {
                /* the connection's event loop wakes on the shutdown and closes it */
                shutdown(c->fd, SHUT_RDWR);
                c->cut = true;
                guard->heads_cut++;
            }
        }
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        long step_ms = guard->head_timeout_ms >= 4000 ? 250 : 50;
        until.tv_nsec += step_ms * 1000000L;
        if (until.tv_nsec >= 1000000000L)
            until.tv_sec++, until.tv_nsec -= 1000000000L;
        pthread_cond_timedwait(&guard->wake, &guard->lock, &until);
    }
    pthread_mutex_unlock(&guard->lock);
    return NULL;
}

mock_guard *mock_guard_new(unsigned head_timeout_ms, unsigned per_address)
{
    mock_guard *guard = calloc(1, sizeof *guard);
    if (guard == NULL)
        return NULL;
    pthread_mutex_init(&guard->lock, NULL);
    pthread_cond_init(&guard->wake, NULL);
    guard->head_timeout_ms = head_timeout_ms;
    guard->per_address = per_address;
    if (pthread_create(&guard->watchdog, NULL, watch, guard) != 0) {
        mock_guard_free(guard);
        return NULL;
    }
    guard->watching = true;
    return guard;
}

void mock_guard_free(mock_guard *guard)
{
    if (guard == NULL)
        return;
    pthread_mutex_lock(&guard->lock);
    guard->stopping = true;
    pthread_cond_signal(&guard->wake);
    pthread_mutex_unlock(&guard->lock);
    if (guard->watching)
        pthread_join(guard->watchdog, NULL);
    while (guard->live != NULL) { /* only when the daemon did not report every close */
        guard_conn *next = guard->live->next;
        free(guard->live);
        guard->live = next;
    }
    pthread_cond_destroy(&guard->wake);
    pthread_mutex_destroy(&guard->lock);
    free(guard);
}

void mock_guard_notify(void *cls, struct MHD_Connection *connection, void **socket_context,
                       enum MHD_ConnectionNotificationCode code)
{
    mock_guard *guard = cls;
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *fd_info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
        const union MHD_ConnectionInfo *addr_info =
            MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
        guard_conn *c = calloc(1, sizeof *c);
        if (c == NULL || fd_info == NULL) {
            free(c);
            *socket_context = NULL;
            return;
        }
        c->fd = fd_info->connect_fd;
        if (addr_info != NULL && addr_info->client_addr != NULL) {
            socklen_t len = addr_info->client_addr->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6)
                            : addr_info->client_addr->sa_family == AF_INET ? sizeof(struct sockaddr_in)
                                                                           : sizeof(struct sockaddr);
            memcpy(&c->addr, addr_info->client_addr, len);
            c->loopback = is_loopback(addr_info->client_addr);
        }
        atomic_init(&c->waiting_since_ms, now_ms());
        pthread_mutex_lock(&guard->lock);
        if (!c->loopback && guard->per_address > 0) {
            unsigned same = 0;
            for (guard_conn *other = guard->live; other != NULL; other = other->next)
                same += !other->cut && same_address(&other->addr, &c->addr);
            if (same >= guard->per_address) { /* over the cap: closed at once, without a response */
                shutdown(c->fd, SHUT_RDWR);
                c->cut = true;
                guard->refused++;
            }
        }
        c->next = guard->live;
        if (guard->live)
            guard->live->prev = c;
        guard->live = c;
        pthread_mutex_unlock(&guard->lock);
        *socket_context = c;
    } else if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
        guard_conn *c = *socket_context;
        if (c == NULL)
            return;
        /* libmicrohttpd closes the socket after this call: under the lock,
         * the watchdog never shuts down a descriptor already reused */
        pthread_mutex_lock(&guard->lock);
        if (c->prev)
            c->prev->next = c->next;
        else
            guard->live = c->next;
        if (c->next)
            c->next->prev = c->prev;
        pthread_mutex_unlock(&guard->lock);
        free(c);
        *socket_context = NULL;
    }
}

static void set_waiting(mock_guard *guard, struct MHD_Connection *connection, bool waiting)
{
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    guard_conn *c = info ? info->socket_context : NULL;
    if (c == NULL)
        return;
    atomic_store(&c->waiting_since_ms, waiting ? now_ms() : -1);
}

void mock_guard_head_done(mock_guard *guard, struct MHD_Connection *connection)
{
    set_waiting(guard, connection, false);
}

void mock_guard_request_done(mock_guard *guard, struct MHD_Connection *connection)
{
    set_waiting(guard, connection, true);
}

unsigned long mock_guard_heads_cut(mock_guard *guard)
{
    pthread_mutex_lock(&guard->lock);
    unsigned long cut = guard->heads_cut;
    pthread_mutex_unlock(&guard->lock);
    return cut;
}

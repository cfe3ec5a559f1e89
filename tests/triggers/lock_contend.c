/* Two threads contend on one lock a known number of times, for plockstat.
 *
 *   lock_contend ROUNDS [mutex|adaptive|rwlock|cond]
 *
 * mutex, adaptive, rwlock: the threads take turns; each takes the lock while
 * the other holds it, and the holder keeps it until the other sleeps in the
 * kernel on the lock's words, so every acquisition but the first waits:
 * 2*ROUNDS holds, 2*ROUNDS-1 waits (rwlock: thread 0 writes, thread 1 reads;
 * the reader waits ROUNDS times, the writer ROUNDS-1).
 * cond: thread 1 waits on a condition variable ROUNDS times; thread 0 signals
 * it while holding the mutex and keeps it until thread 1 sleeps on the mutex,
 * so each of thread 1's condition waits blocks taking the mutex back.
 * It prints nothing. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

pthread_mutex_t biglock = PTHREAD_MUTEX_INITIALIZER;
pthread_rwlock_t bigrw = PTHREAD_RWLOCK_INITIALIZER;
pthread_cond_t bigcond = PTHREAD_COND_INITIALIZER;
static int rounds, use_rw, ready;
static volatile int turn;
static pid_t tids[2];

/* Whether thread `tid` is in a futex system call on [lo, lo + len). */
static int sleeping_on(pid_t tid, const void *lo, size_t len) {
    char path[64], buf[256];
    snprintf(path, sizeof path, "/proc/self/task/%d/syscall", (int)tid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    long nr;
    unsigned long addr;
    if (sscanf(buf, "%ld %lx", &nr, &addr) != 2 || nr != SYS_futex)
        return 0;
    return addr >= (unsigned long)lo && addr < (unsigned long)lo + len;
}

/* Wait until the other thread sleeps on [lo, lo + len). */
static void wait_for(long me, const void *lo, size_t len) {
    while (__atomic_load_n(&tids[!me], __ATOMIC_ACQUIRE) == 0)
        usleep(100);
    while (!sleeping_on(tids[!me], lo, len))
        usleep(200);
}

__attribute__((noinline)) static void take(long me) {
    if (use_rw && me)
        pthread_rwlock_rdlock(&bigrw);
    else if (use_rw)
        pthread_rwlock_wrlock(&bigrw);
    else
        pthread_mutex_lock(&biglock);
}

__attribute__((noinline)) static void give(void) {
    if (use_rw)
        pthread_rwlock_unlock(&bigrw);
    else
        pthread_mutex_unlock(&biglock);
}

static void *turns(void *arg) {
    long me = (long)arg;
    __atomic_store_n(&tids[me], gettid(), __ATOMIC_RELEASE);
    for (int i = 0; i < rounds; i++) {
        while (turn != me)
            ;
        take(me);
        turn = !me;
        if (i < rounds - 1 || !me) {
            if (use_rw)
                wait_for(me, &bigrw, sizeof bigrw);
            else
                wait_for(me, &biglock, sizeof biglock);
        }
        give();
    }
    return NULL;
}

__attribute__((noinline)) static void await_signal(void) {
    while (!ready)
        pthread_cond_wait(&bigcond, &biglock);
    ready = 0;
}

static void *cond_waiter(void *arg) {
    (void)arg;
    __atomic_store_n(&tids[1], gettid(), __ATOMIC_RELEASE);
    for (int i = 0; i < rounds; i++) {
        pthread_mutex_lock(&biglock);
        await_signal();
        pthread_mutex_unlock(&biglock);
    }
    return NULL;
}

static void *cond_signaller(void *arg) {
    (void)arg;
    __atomic_store_n(&tids[0], gettid(), __ATOMIC_RELEASE);
    for (int i = 0; i < rounds; i++) {
        wait_for(0, &bigcond, sizeof bigcond);
        pthread_mutex_lock(&biglock);
        ready = 1;
        pthread_cond_signal(&bigcond);
        wait_for(0, &biglock, sizeof biglock);
        pthread_mutex_unlock(&biglock);
    }
    return NULL;
}

int main(int argc, char **argv) {
    rounds = argc > 1 ? atoi(argv[1]) : 10;
    const char *kind = argc > 2 ? argv[2] : "mutex";
    use_rw = strcmp(kind, "rwlock") == 0;
    int cond = strcmp(kind, "cond") == 0;
    if (strcmp(kind, "adaptive") == 0) {
        pthread_mutexattr_t a;
        pthread_mutexattr_init(&a);
        pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ADAPTIVE_NP);
        pthread_mutex_init(&biglock, &a);
    }
    pthread_t a, b;
    pthread_create(&a, NULL, cond ? cond_signaller : turns, (void *)0);
    pthread_create(&b, NULL, cond ? cond_waiter : turns, (void *)1);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    return 0;
}

/* Two threads take turns on one lock; each takes it while the other holds it
   and keeps it until the other sleeps in the kernel, so every acquisition but
   the first waits (ROUNDS per thread: 2*ROUNDS holds, 2*ROUNDS-1 waits; for the
   rwlock, thread 0 writes and thread 1 reads).
   Usage: lock_contend ROUNDS [mutex|rwlock|adaptive] */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/types.h>
#include <unistd.h>

pthread_mutex_t biglock = PTHREAD_MUTEX_INITIALIZER;
pthread_rwlock_t bigrw = PTHREAD_RWLOCK_INITIALIZER;
static int rounds, use_rw;
static volatile int turn;

static pid_t tids[2];

/* Wait until the other thread sleeps (in the kernel, queued on the lock:
   it does nothing else that sleeps), so that every acquisition but the
   first one waits. */
static void wait_for_waiter(long me) {
    char path[64], buf[256];
    while (__atomic_load_n(&tids[!me], __ATOMIC_ACQUIRE) == 0)
        usleep(100);
    snprintf(path, sizeof path, "/proc/self/task/%d/stat", (int)tids[!me]);
    for (;;) {
        FILE *f = fopen(path, "r");
        if (!f)
            return;
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[n] = 0;
        char *end = strrchr(buf, ')');
        if (end && end[1] == ' ' && end[2] == 'S')
            break;
        usleep(200);
    }
    usleep(1000);
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

static void *worker(void *arg) {
    long me = (long)arg;
    __atomic_store_n(&tids[me], gettid(), __ATOMIC_RELEASE);
    for (int i = 0; i < rounds; i++) {
        while (turn != me)
            ;
        take(me);
        turn = !me;
        if (i < rounds - 1 || !me)
            wait_for_waiter(me);
        give();
    }
    return NULL;
}

int main(int argc, char **argv) {
    rounds = argc > 1 ? atoi(argv[1]) : 10;
    const char *kind = argc > 2 ? argv[2] : "mutex";
    use_rw = strcmp(kind, "rwlock") == 0;
    if (strcmp(kind, "adaptive") == 0) {
        pthread_mutexattr_t a;
        pthread_mutexattr_init(&a);
        pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ADAPTIVE_NP);
        pthread_mutex_init(&biglock, &a);
    }
    pthread_t a, b;
    pthread_create(&a, NULL, worker, (void *)0);
    pthread_create(&b, NULL, worker, (void *)1);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    return 0;
}

/* A small pthread pool for oroya_pose_update_batch (the only core file that uses threads).
 * Workers sleep on a condition variable between batches; inside a batch every thread, the
 * caller included, takes chunks from an atomic counter, so a slow thread never holds the
 * others up by more than one chunk. Nothing here allocates after create. */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "internal/base.h"
#include "oroya/pose.h"

#define POOL_MAX_THREADS 64

struct oroya_thread_pool {
    oroya_allocator allocator;
    uint32_t thread_count;
    uint32_t worker_count;
    pthread_t workers[POOL_MAX_THREADS];
    pthread_mutex_t lock;
    pthread_cond_t wake;
    pthread_cond_t done;
    uint64_t generation; /* bumped for each batch, under lock */
    bool quit;
    uint32_t busy; /* workers still inside the current batch, under lock */
    /* The current batch. */
    oroya_range_fn fn;
    void *ctx;
    uint32_t count;
    uint32_t chunk;
    atomic_uint next; /* the next chunk's index (not its first item: a counter of items
                         would pass 2^32 and wrap for counts near UINT32_MAX, handing
                         ranges out twice); at most some 16 chunks a thread, plus one
                         failed take per thread */
};

static void work(oroya_thread_pool *p) {
    for (;;) {
        uint64_t begin =
            (uint64_t)atomic_fetch_add_explicit(&p->next, 1u, memory_order_relaxed) * p->chunk;
        if (begin >= p->count) {
            return;
        }
        uint64_t end = p->count - begin < p->chunk ? p->count : begin + p->chunk;
        p->fn(p->ctx, (uint32_t)begin, (uint32_t)end);
    }
}

static void *worker_main(void *arg) {
    oroya_thread_pool *p = arg;
    uint64_t seen = 0;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (!p->quit && p->generation == seen) {
            pthread_cond_wait(&p->wake, &p->lock);
        }
        if (p->quit) {
            break;
        }
        seen = p->generation;
        pthread_mutex_unlock(&p->lock);
        work(p);
        pthread_mutex_lock(&p->lock);
        if (--p->busy == 0) {
            pthread_cond_signal(&p->done);
        }
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

oroya_result oroya_thread_pool_create(const oroya_thread_pool_desc *desc, oroya_thread_pool **out,
                                      oroya_error *err) {
    if (out) {
        *out = NULL;
    }
    if (!desc || !out) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                           "oroya_thread_pool_create: desc and out are required");
    }
    const uint32_t threads = desc->thread_count ? desc->thread_count : 2;
    if (threads > POOL_MAX_THREADS) {
        return oroya__fail(err, OROYA_ERR_LIMIT, "oroya_thread_pool_create: %u threads, at most %d",
                           threads, POOL_MAX_THREADS);
    }
    oroya_thread_pool *p = oroya__calloc(&desc->allocator, 1, sizeof *p, 64);
    if (!p) {
        return oroya__fail(err, OROYA_ERR_OUT_OF_MEMORY, "oroya_thread_pool_create");
    }
    p->allocator = desc->allocator;
    p->thread_count = threads;
    atomic_init(&p->next, 0);
    if (pthread_mutex_init(&p->lock, NULL) || pthread_cond_init(&p->wake, NULL) ||
        pthread_cond_init(&p->done, NULL)) {
        oroya__free(&desc->allocator, p);
        return oroya__fail(err, OROYA_ERR_BACKEND, "oroya_thread_pool_create: pthread init");
    }
    for (uint32_t i = 0; i + 1 < threads; i++) {
        if (pthread_create(&p->workers[i], NULL, worker_main, p) != 0) {
            oroya_thread_pool_destroy(p);
            return oroya__fail(err, OROYA_ERR_BACKEND,
                               "oroya_thread_pool_create: pthread_create failed for worker %u", i);
        }
        p->worker_count++;
    }
    *out = p;
    return OROYA_OK;
}

void oroya_thread_pool_destroy(oroya_thread_pool *pool) {
    if (!pool) {
        return;
    }
    pthread_mutex_lock(&pool->lock);
    pool->quit = true;
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->lock);
    for (uint32_t i = 0; i < pool->worker_count; i++) {
        pthread_join(pool->workers[i], NULL);
    }
    pthread_cond_destroy(&pool->done);
    pthread_cond_destroy(&pool->wake);
    pthread_mutex_destroy(&pool->lock);
    oroya_allocator a = pool->allocator;
    oroya__free(&a, pool);
}

void oroya_thread_pool_parallel_for(void *user, uint32_t count, oroya_range_fn fn, void *ctx) {
    oroya_thread_pool *p = user;
    if (!fn || count == 0) {
        return;
    }
    if (!p || p->worker_count == 0) {
        fn(ctx, 0, count);
        return;
    }
    /* About 8 chunks per thread: small enough to even out, big enough to amortize the
     * atomic counter. */
    uint32_t chunk = count / (p->thread_count * 8);
    pthread_mutex_lock(&p->lock);
    p->fn = fn;
    p->ctx = ctx;
    p->count = count;
    p->chunk = chunk ? chunk : 1;
    atomic_store_explicit(&p->next, 0, memory_order_relaxed);
    p->busy = p->worker_count;
    p->generation++;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);
    work(p);
    pthread_mutex_lock(&p->lock);
    while (p->busy) {
        pthread_cond_wait(&p->done, &p->lock);
    }
    pthread_mutex_unlock(&p->lock);
}

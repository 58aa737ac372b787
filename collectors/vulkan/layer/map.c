/*
 * map.c - the layer's one mutable global: a mutex-protected map from Vulkan handles to layer
 * state (chained hash table keyed by object type and handle value).
 */
#include "state.h"

#include <errno.h>
#include <stdlib.h>

struct entry {
	struct entry *next;
	uint64_t handle;
	enum obj_type type;
	void *state;
};

static struct {
	pthread_mutex_t lock;
	struct entry **buckets;
	size_t nbuckets; /* power of two, or 0 before first use */
	size_t count;
} map = { PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0 };

static size_t slot(uint64_t handle, enum obj_type type, size_t nbuckets)
{
	uint64_t h = (handle ^ ((uint64_t)type << 59)) * UINT64_C(0x9e3779b97f4a7c15);

	return (size_t)(h >> 32) & (nbuckets - 1);
}

/* Double the table; on allocation failure keep the old one (chains just get longer). */
static void grow(void)
{
	size_t n = map.nbuckets ? map.nbuckets * 2 : 256;
	struct entry **b = calloc(n, sizeof(*b));

	if (!b)
		return;
	for (size_t i = 0; i < map.nbuckets; i++) {
		struct entry *e = map.buckets[i], *next;

		for (; e; e = next) {
			size_t s = slot(e->handle, e->type, n);

			next = e->next;
			e->next = b[s];
			b[s] = e;
		}
	}
	free(map.buckets);
	map.buckets = b;
	map.nbuckets = n;
}

int map_put(enum obj_type type, uint64_t handle, void *state)
{
	struct entry *e;
	int ret = 0;

	pthread_mutex_lock(&map.lock);
	if (map.count >= map.nbuckets)
		grow();
	if (!map.nbuckets) {
		ret = -ENOMEM;
		goto out_unlock;
	}
	for (e = map.buckets[slot(handle, type, map.nbuckets)]; e; e = e->next) {
		if (e->handle == handle && e->type == type) {
			e->state = state;
			goto out_unlock;
		}
	}
	e = malloc(sizeof(*e));
	if (!e) {
		ret = -ENOMEM;
		goto out_unlock;
	}
	e->handle = handle;
	e->type = type;
	e->state = state;
	e->next = map.buckets[slot(handle, type, map.nbuckets)];
	map.buckets[slot(handle, type, map.nbuckets)] = e;
	map.count++;
out_unlock:
	pthread_mutex_unlock(&map.lock);
	return ret;
}

void *map_get(enum obj_type type, uint64_t handle)
{
	void *state = NULL;

	pthread_mutex_lock(&map.lock);
	if (map.nbuckets) {
		for (struct entry *e = map.buckets[slot(handle, type, map.nbuckets)]; e;
		     e = e->next) {
			if (e->handle == handle && e->type == type) {
				state = e->state;
				break;
			}
		}
	}
	pthread_mutex_unlock(&map.lock);
	return state;
}

void *map_del(enum obj_type type, uint64_t handle)
{
	void *state = NULL;

	pthread_mutex_lock(&map.lock);
	if (map.nbuckets) {
		struct entry **pp = &map.buckets[slot(handle, type, map.nbuckets)];

		for (; *pp; pp = &(*pp)->next) {
			struct entry *e = *pp;

			if (e->handle == handle && e->type == type) {
				*pp = e->next;
				state = e->state;
				free(e);
				map.count--;
				break;
			}
		}
	}
	pthread_mutex_unlock(&map.lock);
	return state;
}

void map_del_state(void *state)
{
	pthread_mutex_lock(&map.lock);
	for (size_t i = 0; i < map.nbuckets; i++) {
		struct entry **pp = &map.buckets[i];

		while (*pp) {
			struct entry *e = *pp;

			if (e->state == state) {
				*pp = e->next;
				free(e);
				map.count--;
			} else {
				pp = &e->next;
			}
		}
	}
	pthread_mutex_unlock(&map.lock);
}

struct layer_device *device_of_dispatchable(const void *handle)
{
	void *key = *(void *const *)handle;
	struct layer_device *dev = NULL;

	/* Every dispatchable object of a device starts with the loader's dispatch table pointer
	 * of that device (LoaderDriverInterface.md, "Driver Dispatchable Object Creation"). */
	pthread_mutex_lock(&map.lock);
	for (size_t i = 0; i < map.nbuckets && !dev; i++) {
		for (struct entry *e = map.buckets[i]; e; e = e->next) {
			if (e->type == OBJ_DEVICE && *(void *const *)(uintptr_t)e->handle == key) {
				dev = e->state;
				break;
			}
		}
	}
	pthread_mutex_unlock(&map.lock);
	return dev;
}

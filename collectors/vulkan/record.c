/*
 * record.c - encode and decode the layer's record files (format in record.h).
 *
 * Decoding treats the file as hostile: it may be truncated by a crash, or be anything at all
 * when fuzzed. Every read goes through a cursor that knows how many bytes remain.
 */
#include "record.h"

#include <math.h>
#include <string.h>

/* Fixed payload bytes of each known type (before strings or arrays). */
#define PROCESS_FIXED 16u
#define DEVICE_FIXED 56u
#define CALIBRATION_FIXED 32u
#define SPAN_FIXED 80u
#define STATS_FIXED 56u
#define DISABLED_FIXED 16u

/* A bounded read cursor; `bad` is sticky once a read ran past the end. */
struct cursor {
	const uint8_t *p;
	size_t left;
	bool bad;
};

static const uint8_t *take(struct cursor *c, size_t n)
{
	const uint8_t *p = c->p;

	if (c->bad || n > c->left) {
		c->bad = true;
		return NULL;
	}
	c->p += n;
	c->left -= n;
	return p;
}

static uint64_t get_le(struct cursor *c, unsigned bytes)
{
	const uint8_t *p = take(c, bytes);
	uint64_t v = 0;

	if (!p)
		return 0;
	for (unsigned i = 0; i < bytes; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static uint8_t get_u8(struct cursor *c)
{
	return (uint8_t)get_le(c, 1);
}

static uint16_t get_u16(struct cursor *c)
{
	return (uint16_t)get_le(c, 2);
}

static uint32_t get_u32(struct cursor *c)
{
	return (uint32_t)get_le(c, 4);
}

static uint64_t get_u64(struct cursor *c)
{
	return get_le(c, 8);
}

/* A string: u16 length + bytes, copied NUL-terminated into `out` (RN_VK_NAME_MAX bytes). */
static void get_str(struct cursor *c, char *out)
{
	uint16_t n = get_u16(c);
	const uint8_t *p;

	out[0] = 0;
	if (n >= RN_VK_NAME_MAX) {
		c->bad = true;
		return;
	}
	p = take(c, n);
	if (!p)
		return;
	memcpy(out, p, n);
	out[n] = 0;
}

/* A bounded write cursor; `bad` once the buffer was too small. */
struct wcursor {
	uint8_t *p;
	size_t left;
	bool bad;
};

static void put_le(struct wcursor *w, uint64_t v, unsigned bytes)
{
	if (w->bad || bytes > w->left) {
		w->bad = true;
		return;
	}
	for (unsigned i = 0; i < bytes; i++)
		w->p[i] = (uint8_t)(v >> (8 * i));
	w->p += bytes;
	w->left -= bytes;
}

static void put_str(struct wcursor *w, const char *s)
{
	size_t n = strnlen(s, RN_VK_NAME_MAX - 1);

	put_le(w, n, 2);
	if (w->bad || n > w->left) {
		w->bad = true;
		return;
	}
	memcpy(w->p, s, n);
	w->p += n;
	w->left -= n;
}

static uint64_t double_bits(double d)
{
	uint64_t u;

	memcpy(&u, &d, sizeof(u));
	return u;
}

static double bits_double(uint64_t u)
{
	double d;

	memcpy(&d, &u, sizeof(d));
	return d;
}

int rn_vk_reader_init(struct rn_vk_reader *r, const void *data, size_t len)
{
	struct cursor c = { data, len, false };
	const uint8_t *magic;
	uint32_t version, pre;

	memset(r, 0, sizeof(*r));
	r->data = data;
	r->len = len;
	if (len < RN_VK_PREAMBLE_BYTES) {
		/* A file cut before its preamble is complete is still recognisable as ours. */
		if (len && memcmp(data, RN_VK_RECORD_MAGIC, len < 8 ? len : 8))
			return -RN_VK_EMAGIC;
		return -RN_VK_ETRUNC;
	}
	magic = take(&c, 8);
	if (memcmp(magic, RN_VK_RECORD_MAGIC, 8))
		return -RN_VK_EMAGIC;
	version = get_u32(&c);
	pre = get_u32(&c);
	if (version == 0 || version > RN_VK_RECORD_VERSION)
		return -RN_VK_EVERSION;
	if (pre < RN_VK_PREAMBLE_BYTES || pre > len)
		return pre > len && pre <= 4096 ? -RN_VK_ETRUNC : -RN_VK_EMAGIC;
	r->version = version;
	r->off = pre;
	return 0;
}

size_t rn_vk_reader_offset(const struct rn_vk_reader *r)
{
	return r->off;
}

/* The payload of a device record at c into d: 0, or -1 when it is malformed. */
static int decode_device(struct cursor *c, struct rn_vk_rec_device *d)
{
	const uint8_t *uuid;

	if (c->left < DEVICE_FIXED)
		return -1;
	d->device = get_u32(c);
	d->vendor_id = get_u32(c);
	d->device_id = get_u32(c);
	d->driver_version = get_u32(c);
	d->api_version = get_u32(c);
	uuid = take(c, 16);
	if (uuid)
		memcpy(d->uuid, uuid, 16);
	d->timestamp_period_ns = bits_double(get_u64(c));
	d->mode = get_u32(c);
	d->flags = get_u32(c);
	d->nfamilies = get_u32(c);
	/* A period that is not a positive finite number would poison every mapped time. */
	if (!isfinite(d->timestamp_period_ns) || d->timestamp_period_ns <= 0 ||
	    d->timestamp_period_ns > 1e9 || d->mode > RN_VK_MODE_DISPATCH ||
	    d->nfamilies > RN_VK_MAX_FAMILIES)
		return -1;
	for (uint32_t i = 0; i < d->nfamilies; i++) {
		d->families[i].valid_bits = get_u32(c);
		d->families[i].queue_flags = get_u32(c);
		if (d->families[i].valid_bits > 64)
			return -1;
	}
	get_str(c, d->name);
	return 0;
}

/* The payload of a span record at c into s: 0, or -1 when it is malformed. */
static int decode_span(struct cursor *c, struct rn_vk_rec_span *s)
{
	if (c->left < SPAN_FIXED)
		return -1;
	s->device = get_u32(c);
	s->kind = get_u8(c);
	s->dir = get_u8(c);
	s->flags = get_u16(c);
	s->queue_family = get_u32(c);
	(void)get_u32(c);
	s->begin_ticks = get_u64(c);
	s->end_ticks = get_u64(c);
	s->submit_ns = get_u64(c);
	s->harvest_ns = get_u64(c);
	for (int i = 0; i < 3; i++)
		s->groups[i] = get_u32(c);
	(void)get_u32(c);
	s->bytes = get_u64(c);
	s->submit_seq = get_u64(c);
	get_str(c, s->name);
	s->region[0] = 0;
	if (c->left >= 2) /* appended field: files of the first release lack it */
		get_str(c, s->region);
	if (s->kind >= RN_VK_KIND_COUNT || s->dir >= RN_VK_DIR_COUNT)
		return -1;
	return 0;
}

static int decode_payload(uint16_t type, struct cursor *c, struct rn_vk_record *rec)
{
	memset(rec, 0, sizeof(*rec));
	rec->type = (enum rn_vk_record_type)type;
	switch (type) {
	case RN_VK_REC_PROCESS: {
		struct rn_vk_rec_process *p = &rec->u.process;

		if (c->left < PROCESS_FIXED)
			return -RN_VK_EMALFORMED;
		p->pid = get_u32(c);
		(void)get_u32(c);
		p->load_ns = get_u64(c);
		get_str(c, p->exe);
		break;
	}
	case RN_VK_REC_DEVICE:
		if (decode_device(c, &rec->u.device))
			return -RN_VK_EMALFORMED;
		break;
	case RN_VK_REC_CALIBRATION: {
		struct rn_vk_rec_calibration *k = &rec->u.calibration;

		if (c->left < CALIBRATION_FIXED)
			return -RN_VK_EMALFORMED;
		k->device = get_u32(c);
		(void)get_u32(c);
		k->gpu_ticks = get_u64(c);
		k->host_ns = get_u64(c);
		k->deviation_ns = get_u64(c);
		break;
	}
	case RN_VK_REC_SPAN:
		if (decode_span(c, &rec->u.span))
			return -RN_VK_EMALFORMED;
		break;
	case RN_VK_REC_STATS: {
		struct rn_vk_rec_stats *s = &rec->u.stats;

		if (c->left < STATS_FIXED)
			return -RN_VK_EMALFORMED;
		s->device = get_u32(c);
		(void)get_u32(c);
		s->spans = get_u64(c);
		s->untimed_secondary = get_u64(c);
		s->untimed_simultaneous = get_u64(c);
		s->untimed_family = get_u64(c);
		s->untimed_no_slots = get_u64(c);
		s->lost = get_u64(c);
		break;
	}
	case RN_VK_REC_DISABLED: {
		struct rn_vk_rec_disabled *d = &rec->u.disabled;

		if (c->left < DISABLED_FIXED)
			return -RN_VK_EMALFORMED;
		d->device = get_u32(c);
		d->reason = get_u32(c);
		d->vk_result = (int32_t)get_u32(c);
		(void)get_u32(c);
		get_str(c, d->message);
		break;
	}
	default:
		return 0; /* unknown: skipped by the caller */
	}
	return c->bad ? -RN_VK_EMALFORMED : 1;
}

int rn_vk_reader_next(struct rn_vk_reader *r, struct rn_vk_record *rec)
{
	for (;;) {
		struct cursor c;
		uint16_t type;
		uint32_t plen;
		int ret;

		if (r->off > r->len)
			return -RN_VK_EMALFORMED;
		if (r->off == r->len)
			return 0;
		c = (struct cursor){ r->data + r->off, r->len - r->off, false };
		if (c.left < RN_VK_RECORD_HEADER_BYTES)
			return -RN_VK_ETRUNC;
		type = get_u16(&c);
		(void)get_u16(&c);
		plen = get_u32(&c);
		if (plen > RN_VK_RECORD_MAX_PAYLOAD || type == 0)
			return -RN_VK_EMALFORMED;
		if (plen > c.left)
			return -RN_VK_ETRUNC;
		c.left = plen; /* decode only inside the payload */
		ret = decode_payload(type, &c, rec);
		if (ret < 0)
			return ret;
		r->off += RN_VK_RECORD_HEADER_BYTES + plen;
		r->nrecords++;
		if (ret > 0)
			return 1;
	}
}

const char *rn_vk_record_strerror(int err)
{
	switch (err < 0 ? -err : err) {
	case RN_VK_EMAGIC:
		return "not a renacer vulkan record file";
	case RN_VK_EVERSION:
		return "unsupported record format version";
	case RN_VK_ETRUNC:
		return "file ends inside a record";
	case RN_VK_EMALFORMED:
		return "malformed record";
	default:
		return "unknown error";
	}
}

size_t rn_vk_record_preamble(uint8_t *out, size_t cap)
{
	struct wcursor w = { out, cap, false };

	if (cap < RN_VK_PREAMBLE_BYTES)
		return 0;
	memcpy(out, RN_VK_RECORD_MAGIC, 8);
	w.p += 8;
	w.left -= 8;
	put_le(&w, RN_VK_RECORD_VERSION, 4);
	put_le(&w, RN_VK_PREAMBLE_BYTES, 4);
	return w.bad ? 0 : RN_VK_PREAMBLE_BYTES;
}

static void encode_device(struct wcursor *w, const struct rn_vk_rec_device *d)
{
	uint32_t n = d->nfamilies < RN_VK_MAX_FAMILIES ? d->nfamilies : RN_VK_MAX_FAMILIES;

	put_le(w, d->device, 4);
	put_le(w, d->vendor_id, 4);
	put_le(w, d->device_id, 4);
	put_le(w, d->driver_version, 4);
	put_le(w, d->api_version, 4);
	for (int i = 0; i < 16; i++)
		put_le(w, d->uuid[i], 1);
	put_le(w, double_bits(d->timestamp_period_ns), 8);
	put_le(w, d->mode, 4);
	put_le(w, d->flags, 4);
	put_le(w, n, 4);
	for (uint32_t i = 0; i < n; i++) {
		put_le(w, d->families[i].valid_bits, 4);
		put_le(w, d->families[i].queue_flags, 4);
	}
	put_str(w, d->name);
}

static void encode_span(struct wcursor *w, const struct rn_vk_rec_span *s)
{
	put_le(w, s->device, 4);
	put_le(w, s->kind, 1);
	put_le(w, s->dir, 1);
	put_le(w, s->flags, 2);
	put_le(w, s->queue_family, 4);
	put_le(w, 0, 4);
	put_le(w, s->begin_ticks, 8);
	put_le(w, s->end_ticks, 8);
	put_le(w, s->submit_ns, 8);
	put_le(w, s->harvest_ns, 8);
	for (int i = 0; i < 3; i++)
		put_le(w, s->groups[i], 4);
	put_le(w, 0, 4);
	put_le(w, s->bytes, 8);
	put_le(w, s->submit_seq, 8);
	put_str(w, s->name);
	put_str(w, s->region);
}

size_t rn_vk_record_encode(const struct rn_vk_record *rec, uint8_t *out, size_t cap)
{
	struct wcursor w = { out, cap, false };
	uint8_t *len_at;
	size_t plen;

	put_le(&w, (uint64_t)rec->type, 2);
	put_le(&w, 0, 2);
	len_at = w.p;
	put_le(&w, 0, 4); /* patched below */
	switch (rec->type) {
	case RN_VK_REC_PROCESS: {
		const struct rn_vk_rec_process *p = &rec->u.process;

		put_le(&w, p->pid, 4);
		put_le(&w, 0, 4);
		put_le(&w, p->load_ns, 8);
		put_str(&w, p->exe);
		break;
	}
	case RN_VK_REC_DEVICE:
		encode_device(&w, &rec->u.device);
		break;
	case RN_VK_REC_CALIBRATION: {
		const struct rn_vk_rec_calibration *k = &rec->u.calibration;

		put_le(&w, k->device, 4);
		put_le(&w, 0, 4);
		put_le(&w, k->gpu_ticks, 8);
		put_le(&w, k->host_ns, 8);
		put_le(&w, k->deviation_ns, 8);
		break;
	}
	case RN_VK_REC_SPAN:
		encode_span(&w, &rec->u.span);
		break;
	case RN_VK_REC_STATS: {
		const struct rn_vk_rec_stats *s = &rec->u.stats;

		put_le(&w, s->device, 4);
		put_le(&w, 0, 4);
		put_le(&w, s->spans, 8);
		put_le(&w, s->untimed_secondary, 8);
		put_le(&w, s->untimed_simultaneous, 8);
		put_le(&w, s->untimed_family, 8);
		put_le(&w, s->untimed_no_slots, 8);
		put_le(&w, s->lost, 8);
		break;
	}
	case RN_VK_REC_DISABLED: {
		const struct rn_vk_rec_disabled *d = &rec->u.disabled;

		put_le(&w, d->device, 4);
		put_le(&w, d->reason, 4);
		put_le(&w, (uint32_t)d->vk_result, 4);
		put_le(&w, 0, 4);
		put_str(&w, d->message);
		break;
	}
	default:
		return 0;
	}
	if (w.bad)
		return 0;
	plen = (size_t)(w.p - len_at) - 4;
	for (int i = 0; i < 4; i++)
		len_at[i] = (uint8_t)(plen >> (8 * i));
	return (size_t)(w.p - out);
}

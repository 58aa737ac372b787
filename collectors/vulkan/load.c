/*
 * load.c - map one record file's spans to host time (see load.h).
 */
#include "load.h"

#include <stdio.h>
#include <string.h>

#include "clock.h"
#include "xalloc.h"

/* Devices one file may describe; more is malformed. */
#define MAX_DEVICES 64

struct device {
	struct rn_vk_rec_device rec;        /* the DEVICE record */
	struct rn_vk_clock_sample *samples; /* calibration samples, sorted after pass 1 */
	size_t nsamples;                    /* used */
	size_t cap;                         /* allocated */
	struct rn_vk_fallback fallback;     /* causal bounds when nsamples == 0 */
	struct rn_vk_rec_stats stats;       /* last STATS record */
	bool have_stats;                    /* stats is set */
};

struct file {
	struct device dev[MAX_DEVICES];
	size_t ndev;
	uint32_t pid;
};

void rn_vk_load_report_init(struct rn_vk_load_report *rep)
{
	memset(rep, 0, sizeof(*rep));
	rep->min_deviation_ns = UINT64_MAX;
}

static struct device *find(struct file *f, uint32_t id)
{
	for (size_t i = 0; i < f->ndev; i++)
		if (f->dev[i].rec.device == id)
			return &f->dev[i];
	return NULL;
}

static uint32_t family_bits(const struct device *d, uint32_t family)
{
	return family < d->rec.nfamilies ? d->rec.families[family].valid_bits : 0;
}

static void release(struct file *f)
{
	for (size_t i = 0; i < f->ndev; i++)
		free(f->dev[i].samples);
}

static void fail(struct rn_vk_load_report *rep, int err, size_t off)
{
	if (!rep->error) {
		rep->error = err;
		rep->error_offset = off;
	}
}

/* Record a malformed record at byte offset `at` and return the error. */
static int malformed(struct rn_vk_load_report *rep, size_t at)
{
	fail(rep, -RN_VK_EMALFORMED, at);
	return -RN_VK_EMALFORMED;
}

/* Pass 1: everything but spans. */
static int pass_meta(struct file *f, const void *data, size_t len, struct rn_vk_load_report *rep)
{
	struct rn_vk_reader r;
	struct rn_vk_record rec;
	int ret = rn_vk_reader_init(&r, data, len);

	if (ret == -RN_VK_ETRUNC) {
		rep->truncated++;
		return 1; /* nothing readable, but not an error: the writer died while opening */
	}
	if (ret)
		return ret;
	for (;;) {
		/* Offset of the record about to be read: where a malformed one is reported. */
		size_t at = rn_vk_reader_offset(&r);
		struct device *d;

		ret = rn_vk_reader_next(&r, &rec);
		if (ret <= 0)
			break;
		switch (rec.type) {
		case RN_VK_REC_PROCESS:
			f->pid = rec.u.process.pid;
			break;
		case RN_VK_REC_DEVICE:
			if (find(f, rec.u.device.device) || f->ndev == MAX_DEVICES)
				return malformed(rep, at);
			d = &f->dev[f->ndev++];
			memset(d, 0, sizeof(*d));
			d->rec = rec.u.device;
			rn_vk_fallback_init(&d->fallback);
			rep->devices++;
			break;
		case RN_VK_REC_CALIBRATION:
			d = find(f, rec.u.calibration.device);
			if (!d)
				return malformed(rep, at);
			d->samples =
				rn_xgrow(d->samples, &d->cap, d->nsamples + 1, sizeof(*d->samples));
			d->samples[d->nsamples++] =
				(struct rn_vk_clock_sample){ rec.u.calibration.gpu_ticks,
							     rec.u.calibration.host_ns,
							     rec.u.calibration.deviation_ns };
			rep->calibrations++;
			if (rec.u.calibration.deviation_ns > rep->max_deviation_ns)
				rep->max_deviation_ns = rec.u.calibration.deviation_ns;
			if (rec.u.calibration.deviation_ns < rep->min_deviation_ns)
				rep->min_deviation_ns = rec.u.calibration.deviation_ns;
			break;
		case RN_VK_REC_STATS:
			d = find(f, rec.u.stats.device);
			if (!d)
				return malformed(rep, at);
			d->stats = rec.u.stats;
			d->have_stats = true;
			break;
		case RN_VK_REC_DISABLED:
			d = find(f, rec.u.disabled.device);
			if (!rep->disabled)
				snprintf(rep->disabled_msg, sizeof(rep->disabled_msg),
					 "device '%s': %s", d ? d->rec.name : "?",
					 rec.u.disabled.message);
			rep->disabled++;
			break;
		default:
			break;
		}
	}
	if (ret == -RN_VK_ETRUNC) {
		rep->truncated++;
		ret = 0;
	}
	if (ret < 0)
		fail(rep, ret, rn_vk_reader_offset(&r));
	return ret;
}

/* Pass 2: causal bounds for devices without calibration (clock.h). */
static void pass_fallback(struct file *f, const void *data, size_t len)
{
	struct rn_vk_reader r;
	struct rn_vk_record rec;

	if (rn_vk_reader_init(&r, data, len))
		return;
	while (rn_vk_reader_next(&r, &rec) > 0) {
		const struct rn_vk_rec_span *s = &rec.u.span;
		struct device *d;
		uint32_t bits;

		if (rec.type != RN_VK_REC_SPAN)
			continue;
		d = find(f, s->device);
		if (!d || d->nsamples)
			continue;
		bits = family_bits(d, s->queue_family);
		if (bits)
			rn_vk_fallback_add(&d->fallback, s->begin_ticks, s->end_ticks, bits,
					   d->rec.timestamp_period_ns, s->submit_ns, s->harvest_ns);
	}
}

/* Pass 3: map and deliver spans. */
static int pass_spans(struct file *f, const void *data, size_t len, rn_vk_span_fn fn, void *ctx,
		      struct rn_vk_load_report *rep)
{
	struct rn_vk_reader r;
	struct rn_vk_record rec;

	if (rn_vk_reader_init(&r, data, len))
		return 0;
	while (rn_vk_reader_next(&r, &rec) > 0) {
		const struct rn_vk_rec_span *s = &rec.u.span;
		struct rn_gpu_span span;
		struct rn_vk_clock clock;
		struct device *d;
		uint64_t start, unc;
		double dur;
		uint32_t bits;
		int ret;

		if (rec.type != RN_VK_REC_SPAN)
			continue;
		d = find(f, s->device);
		bits = d ? family_bits(d, s->queue_family) : 0;
		if (!bits) {
			rep->unmapped++;
			continue;
		}
		clock = (struct rn_vk_clock){ d->rec.timestamp_period_ns, d->samples, d->nsamples,
					      &d->fallback };
		dur = rn_vk_ticks_elapsed_ns(s->begin_ticks, s->end_ticks, bits,
					     d->rec.timestamp_period_ns);
		if (rn_vk_clock_map(&clock, s->begin_ticks, bits, &start, &unc) || dur < 0 ||
		    dur > 1e15) {
			rep->unmapped++;
			continue;
		}
		memset(&span, 0, sizeof(span));
		span.pid = (pid_t)f->pid;
		span.kind = (enum rn_gpu_kind)s->kind;
		span.flags = s->flags & (RN_GPU_INDIRECT | RN_GPU_SERIALIZED | RN_GPU_WAITED);
		span.name = rec.u.span.name;
		span.region = rec.u.span.region[0] ? rec.u.span.region : NULL;
		span.queue_family = s->queue_family;
		span.start_ns = start;
		span.end_ns = start + (uint64_t)(dur + 0.5);
		span.submit_ns = s->submit_ns;
		span.uncertainty_ns = unc;
		memcpy(span.groups, s->groups, sizeof(span.groups));
		span.bytes = s->bytes;
		span.dir = (enum rn_gpu_dir)s->dir;
		rep->spans++;
		ret = fn(ctx, &span, s);
		if (ret)
			return ret;
	}
	return 0;
}

int rn_vk_load(const void *data, size_t len, rn_vk_span_fn fn, void *ctx,
	       struct rn_vk_load_report *rep)
{
	struct file *f = rn_xcalloc(1, sizeof(*f));
	int ret;

	rep->files++;
	ret = pass_meta(f, data, len, rep);
	if (ret == 1) {
		ret = 0;
		goto out_free;
	}
	if (ret < 0) {
		fail(rep, ret, 0);
		goto out_free;
	}
	for (size_t i = 0; i < f->ndev; i++) {
		struct device *d = &f->dev[i];

		rn_vk_clock_sort(d->samples, d->nsamples);
		if (!d->nsamples)
			rep->uncalibrated++;
		if (d->have_stats) {
			rep->stats.spans += d->stats.spans;
			rep->stats.untimed_secondary += d->stats.untimed_secondary;
			rep->stats.untimed_simultaneous += d->stats.untimed_simultaneous;
			rep->stats.untimed_family += d->stats.untimed_family;
			rep->stats.untimed_no_slots += d->stats.untimed_no_slots;
			rep->stats.lost += d->stats.lost;
		}
	}
	pass_fallback(f, data, len);
	ret = pass_spans(f, data, len, fn, ctx, rep);
out_free:
	release(f);
	free(f);
	return ret;
}

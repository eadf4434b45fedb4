/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Internal to src/exporters/otlp/: the stable common messages (KeyValue,
 * Resource, InstrumentationScope) shared by the signal encoders, so the
 * development profiles encoder (otlp_profiles.c) needs no copy of them.
 */
#ifndef ENAV_EXPORTERS_OTLP_OTLP_COMMON_H
#define ENAV_EXPORTERS_OTLP_OTLP_COMMON_H

#include "exporters/otlp/otlp_encode.h"

/* 0 or -EINVAL (NULL key, unknown type, NULL array with n > 0). */
int enav_otlp_check_kvs(const struct enav_otlp_kv *kv, size_t n);
/* AnyValue's fields (into an already open AnyValue message). */
void enav_otlp_put_anyvalue(struct enav_pb_writer *w, const struct enav_otlp_kv *kv);
/* Repeated KeyValue at field. */
void enav_otlp_put_kvs(struct enav_pb_writer *w, uint32_t field, const struct enav_otlp_kv *kv,
		       size_t n);
/* Resource at field 1 and InstrumentationScope at field 1 of the
 * Resource* and Scope* messages respectively. */
void enav_otlp_put_resource(struct enav_pb_writer *w, const struct enav_otlp_resource *r);
void enav_otlp_put_scope(struct enav_pb_writer *w, const struct enav_otlp_scope *s);
/* The writer's state as a return: 0, or -E2BIG when it failed. */
int enav_otlp_writer_rc(const struct enav_pb_writer *w);

#endif

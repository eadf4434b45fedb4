/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the pprof builder and decoder share: the field numbers of
 * perftools.profiles (profile.proto) and the default size cap.
 */
#ifndef ENAV_MODEL_PPROF_PROTO_PRIV_H
#define ENAV_MODEL_PPROF_PROTO_PRIV_H

#include <stddef.h>

/* Field numbers of perftools.profiles (profile.proto). */
enum {
	PF_SAMPLE_TYPE = 1,
	PF_SAMPLE = 2,
	PF_MAPPING = 3,
	PF_LOCATION = 4,
	PF_FUNCTION = 5,
	PF_STRING_TABLE = 6,
	PF_DROP_FRAMES = 7,
	PF_KEEP_FRAMES = 8,
	PF_TIME_NANOS = 9,
	PF_DURATION_NANOS = 10,
	PF_PERIOD_TYPE = 11,
	PF_PERIOD = 12,
	PF_COMMENT = 13,
	PF_DEFAULT_SAMPLE_TYPE = 14,
	PF_DOC_URL = 15,
};
enum { VT_TYPE = 1, VT_UNIT = 2 };
enum { SA_LOCATION_ID = 1, SA_VALUE = 2, SA_LABEL = 3 };
enum { LA_KEY = 1, LA_STR = 2, LA_NUM = 3, LA_NUM_UNIT = 4 };
enum {
	MA_ID = 1,
	MA_START = 2,
	MA_LIMIT = 3,
	MA_OFFSET = 4,
	MA_FILENAME = 5,
	MA_BUILD_ID = 6,
	MA_HAS_FUNCTIONS = 7,
	MA_HAS_FILENAMES = 8,
	MA_HAS_LINE_NUMBERS = 9,
};
enum { LO_ID = 1, LO_MAPPING_ID = 2, LO_ADDRESS = 3, LO_LINE = 4 };
enum { LI_FUNCTION_ID = 1, LI_LINE = 2 };
enum { FN_ID = 1, FN_NAME = 2, FN_SYSTEM_NAME = 3, FN_FILENAME = 4 };

/* Encoded (and, for the decoder, decompressed) size cap when none is given. */
#define DEF_MAX_BYTES ((size_t)64 << 20)

#endif

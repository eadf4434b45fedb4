build-km/obj/src/discovery/capture_filter.o: \
  src/discovery/capture_filter.c src/discovery/capture_filter.h \
  src/config/config.h src/platform/log.h src/platform/promtext.h \
  src/platform/u64map.h include/enav/abi.h src/probe/features.h

src/discovery/capture_filter.h:

src/config/config.h:

src/platform/log.h:

src/platform/promtext.h:

src/platform/u64map.h:

include/enav/abi.h:

src/probe/features.h:

build-km/obj/src/exporters/pyroscope/pyroscope.o: \
  src/exporters/pyroscope/pyroscope.c \
  src/exporters/pyroscope/pyroscope.h src/platform/clock.h \
  src/platform/log.h src/platform/promtext.h src/runtime/export_worker.h \
  src/runtime/profiles.h include/enav/abi.h

src/exporters/pyroscope/pyroscope.h:

src/platform/clock.h:

src/platform/log.h:

src/platform/promtext.h:

src/runtime/export_worker.h:

src/runtime/profiles.h:

include/enav/abi.h:

build-km/obj/src/features/profiling/pprof_pull.o: \
  src/features/profiling/pprof_pull.c \
  src/features/profiling/pprof_pull.h src/platform/clock.h \
  src/config/config.h src/platform/log.h src/platform/parse.h \
  src/platform/promtext.h src/features/profiling/go_buildinfo.h \
  src/features/profiling/pprof_filter.h \
  src/features/profiling/profile_spool.h \
  src/exporters/pyroscope/pyroscope.h

src/features/profiling/pprof_pull.h:

src/platform/clock.h:

src/config/config.h:

src/platform/log.h:

src/platform/parse.h:

src/platform/promtext.h:

src/features/profiling/go_buildinfo.h:

src/features/profiling/pprof_filter.h:

src/features/profiling/profile_spool.h:

src/exporters/pyroscope/pyroscope.h:

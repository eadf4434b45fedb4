build-km/obj/src/features/profiling/pprof_filter.o: \
  src/features/profiling/pprof_filter.c \
  src/features/profiling/pprof_filter.h src/model/pprof.h

src/features/profiling/pprof_filter.h:

src/model/pprof.h:

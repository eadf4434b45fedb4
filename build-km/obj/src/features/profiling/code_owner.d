build-km/obj/src/features/profiling/code_owner.o: \
  src/features/profiling/code_owner.c \
  src/features/profiling/pprof_filter.h src/platform/parse.h \
  src/features/profiling/go_buildinfo.h

src/features/profiling/pprof_filter.h:

src/platform/parse.h:

src/features/profiling/go_buildinfo.h:

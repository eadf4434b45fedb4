build-km/obj/src/cli/pprof_filter_cmd.o: src/cli/pprof_filter_cmd.c \
  src/cli/pprof_filter_cmd.h src/features/profiling/go_buildinfo.h \
  src/features/profiling/pprof_filter.h

src/cli/pprof_filter_cmd.h:

src/features/profiling/go_buildinfo.h:

src/features/profiling/pprof_filter.h:

build-km/obj/src/features/profiling/go_buildinfo.o: \
  src/features/profiling/go_buildinfo.c \
  src/features/profiling/go_buildinfo.h src/platform/parse.h

src/features/profiling/go_buildinfo.h:

src/platform/parse.h:

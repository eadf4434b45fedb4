build-km/obj/src/features/profiling/flamegraph.o: \
  src/features/profiling/flamegraph.c \
  src/features/profiling/flamegraph.h

src/features/profiling/flamegraph.h:

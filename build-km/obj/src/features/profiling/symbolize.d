build-km/obj/src/features/profiling/symbolize.o: \
  src/features/profiling/symbolize.c src/features/profiling/symbolize.h \
  src/platform/clock.h src/platform/log.h \
  src/features/profiling/symbolize_priv.h src/platform/proc_lines.h

src/features/profiling/symbolize.h:

src/platform/clock.h:

src/platform/log.h:

src/features/profiling/symbolize_priv.h:

src/platform/proc_lines.h:

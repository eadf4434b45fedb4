build-km/obj/src/features/profiling/unwind_tables.o: \
  src/features/profiling/unwind_tables.c \
  src/features/profiling/unwind_tables.h include/enav/abi.h \
  src/features/profiling/eh_frame.h src/platform/promtext.h \
  src/features/profiling/symbolize_priv.h src/platform/proc_lines.h \
  src/platform/clock.h src/platform/log.h

src/features/profiling/unwind_tables.h:

include/enav/abi.h:

src/features/profiling/eh_frame.h:

src/platform/promtext.h:

src/features/profiling/symbolize_priv.h:

src/platform/proc_lines.h:

src/platform/clock.h:

src/platform/log.h:

build-km/obj/src/features/profiling/eh_frame.o: \
  src/features/profiling/eh_frame.c \
  src/features/profiling/eh_frame_priv.h \
  src/features/profiling/eh_frame.h

src/features/profiling/eh_frame_priv.h:

src/features/profiling/eh_frame.h:

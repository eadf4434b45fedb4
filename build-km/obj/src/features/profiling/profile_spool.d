build-km/obj/src/features/profiling/profile_spool.o: \
  src/features/profiling/profile_spool.c \
  src/features/profiling/profile_spool.h src/platform/log.h \
  src/platform/promtext.h src/features/profiling/profile_store.h \
  include/enav/abi.h src/runtime/profiles.h

src/features/profiling/profile_spool.h:

src/platform/log.h:

src/platform/promtext.h:

src/features/profiling/profile_store.h:

include/enav/abi.h:

src/runtime/profiles.h:

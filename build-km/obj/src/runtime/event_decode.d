build-km/obj/src/runtime/event_decode.o: src/runtime/event_decode.c \
  src/runtime/event_decode.h include/enav/abi.h

src/runtime/event_decode.h:

include/enav/abi.h:

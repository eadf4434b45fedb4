build-km/obj/src/features/network/net_decode.o: \
  src/features/network/net_decode.c src/features/network/net_decode.h \
  include/enav/abi.h src/runtime/event_decode.h

src/features/network/net_decode.h:

include/enav/abi.h:

src/runtime/event_decode.h:

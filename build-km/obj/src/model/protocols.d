build-km/obj/src/model/protocols.o: src/model/protocols.c \
  src/model/protocols.h include/enav/l7_classify.h

src/model/protocols.h:

include/enav/l7_classify.h:

build-km/obj/src/platform/json.o: src/platform/json.c src/platform/json.h \
  src/platform/numfmt.h

src/platform/json.h:

src/platform/numfmt.h:

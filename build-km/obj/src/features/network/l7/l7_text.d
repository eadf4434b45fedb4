build-km/obj/src/features/network/l7/l7_text.o: \
  src/features/network/l7/l7_text.c src/features/network/l7/l7_text.h

src/features/network/l7/l7_text.h:

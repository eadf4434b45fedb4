build-km/obj/src/platform/http.o: src/platform/http.c src/platform/http.h

src/platform/http.h:

build-km/obj/src/discovery/k8s_http.o: src/discovery/k8s_http.c \
  src/discovery/k8s_http.h src/discovery/k8s_priv.h src/discovery/k8s.h \
  src/config/config.h src/platform/log.h src/platform/promtext.h \
  src/discovery/k8s_extra.h

src/discovery/k8s_http.h:

src/discovery/k8s_priv.h:

src/discovery/k8s.h:

src/config/config.h:

src/platform/log.h:

src/platform/promtext.h:

src/discovery/k8s_extra.h:

build-km/obj/src/discovery/k8s_metrics.o: src/discovery/k8s_metrics.c \
  src/discovery/k8s_state.h src/discovery/k8s_http.h \
  src/discovery/k8s_priv.h src/discovery/k8s.h src/config/config.h \
  src/platform/log.h src/platform/promtext.h src/discovery/k8s_extra.h

src/discovery/k8s_state.h:

src/discovery/k8s_http.h:

src/discovery/k8s_priv.h:

src/discovery/k8s.h:

src/config/config.h:

src/platform/log.h:

src/platform/promtext.h:

src/discovery/k8s_extra.h:

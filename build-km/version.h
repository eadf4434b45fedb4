#define ENAV_GIT_REV "86a61b9f26c0"

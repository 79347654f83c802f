// GREENER timing model: see greener.h (issue #18).

// Support for the generated weak stubs (stubs.cpp).
#pragma once

extern "C" int simtlab_cudart_unsupported(const char* api);

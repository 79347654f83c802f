#include "func/printf.h"

#include <cstdio>
#include <cstring>

#include "base/bits.h"

namespace simtlab::func {

std::string format_device_printf(const std::string& f,
                                 const std::function<void(uint64_t, void*, uint32_t)>& read_arg,
                                 const std::function<std::string(uint64_t)>& read_str, int* nargs) {
  std::string out;
  uint64_t off = 0;
  int count = 0;
  auto take = [&](uint32_t size) {
    off = align_up(off, size);
    uint64_t v = 0;
    read_arg(off, &v, size);
    off += size;
    ++count;
    return v;
  };
  for (size_t i = 0; i < f.size();) {
    if (f[i] != '%') {
      out.push_back(f[i++]);
      continue;
    }
    if (i + 1 < f.size() && f[i + 1] == '%') {
      out.push_back('%');
      i += 2;
      continue;
    }
    // %[flags][width][.prec][length]conv
    size_t j = i + 1;
    std::string spec = "%";
    while (j < f.size() && std::strchr("-+ #0", f[j])) spec.push_back(f[j++]);
    auto num = [&]() {
      if (j < f.size() && f[j] == '*') {
        const int v = int(take(4));
        spec += std::to_string(v);
        ++j;
        return;
      }
      while (j < f.size() && f[j] >= '0' && f[j] <= '9') spec.push_back(f[j++]);
    };
    num();
    if (j < f.size() && f[j] == '.') {
      spec.push_back(f[j++]);
      num();
    }
    int longs = 0;
    bool half = false;
    while (j < f.size() && std::strchr("hlLqjzt", f[j])) {
      if (f[j] == 'l' || f[j] == 'q' || f[j] == 'j' || f[j] == 'z' || f[j] == 't' || f[j] == 'L')
        ++longs;
      if (f[j] == 'h') half = true;
      ++j;
    }
    if (j >= f.size()) {
      out += f.substr(i);
      break;
    }
    const char conv = f[j++];
    char buf[512];
    switch (conv) {
      case 'd':
      case 'i': {
        const int64_t v = longs ? int64_t(take(8)) : int64_t(int32_t(take(4)));
        std::snprintf(buf, sizeof buf, (spec + "lld").c_str(), (long long)v);
        out += buf;
        break;
      }
      case 'u':
      case 'x':
      case 'X':
      case 'o': {
        uint64_t v = longs ? take(8) : uint64_t(uint32_t(take(4)));
        if (half && !longs) v &= 0xffff;
        std::snprintf(buf, sizeof buf, (spec + "ll" + conv).c_str(), (unsigned long long)v);
        out += buf;
        break;
      }
      case 'c': {
        const int v = int(take(4));
        std::snprintf(buf, sizeof buf, (spec + "c").c_str(), v);
        out += buf;
        break;
      }
      case 'f':
      case 'F':
      case 'e':
      case 'E':
      case 'g':
      case 'G':
      case 'a':
      case 'A': {
        const double v = bitcast<double>(take(8));
        std::snprintf(buf, sizeof buf, (spec + conv).c_str(), v);
        out += buf;
        break;
      }
      case 'p': {
        const uint64_t v = take(8);
        std::snprintf(buf, sizeof buf, (spec + "p").c_str(), reinterpret_cast<void*>(v));
        out += buf;
        break;
      }
      case 's': {
        const uint64_t p = take(8);
        const std::string s = read_str(p);
        const std::string sp = spec + "s";
        const int n = std::snprintf(nullptr, 0, sp.c_str(), s.c_str());
        std::string tmp(size_t(std::max(n, 0)) + 1, '\0');
        std::snprintf(tmp.data(), tmp.size(), sp.c_str(), s.c_str());
        tmp.resize(size_t(std::max(n, 0)));
        out += tmp;
        break;
      }
      default:
        out += f.substr(i, j - i);
        break;
    }
    i = j;
  }
  if (nargs) *nargs = count;
  return out;
}

}  // namespace simtlab::func

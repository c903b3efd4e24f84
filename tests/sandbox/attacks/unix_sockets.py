"""Attack: reach host services over Unix sockets, a filesystem one and an
abstract one (no file, no permission check). f(path, abstract_name) returns
what got through. Run only in the sandbox, as test data."""

import socket


def f(path, abstract_name):
    got = []
    for label, address in (("path", path), ("abstract", "\0" + abstract_name)):
        try:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        except OSError as exc:
            got.append(f"{label}: no socket ({exc.strerror})")
            continue
        try:
            s.settimeout(2)
            s.connect(address)
            s.sendall(b"hello from the sandbox\n")
            got.append(f"{label}: connected")
        except OSError as exc:
            got.append(f"{label}: refused ({exc.strerror})")
        finally:
            s.close()
    return got

"""Runs a Swift server of the local cloud with its configuration in the state directory.

  capi_localcloud_swift.py SWIFT_DIR account|container|object|proxy CONF_FILE

Swift reads its hash prefix and storage policies from /etc/swift/swift.conf unless told
otherwise; the local cloud keeps everything under its state directory, so the directory is set
before any server module loads its policies.
"""
import sys

from swift.common import utils


def main():
    if len(sys.argv) != 4 or sys.argv[2] not in ("account", "container", "object", "proxy"):
        sys.exit("usage: capi_localcloud_swift.py SWIFT_DIR account|container|object|proxy CONF_FILE")
    swift_dir, kind, conf = sys.argv[1:]
    utils.set_swift_dir(swift_dir)
    if kind == "proxy":
        from swift.proxy.server import main as run
    elif kind == "object":
        from swift.obj.server import main as run
    elif kind == "container":
        from swift.container.server import main as run
    else:
        from swift.account.server import main as run
    # --verbose: the log goes to stdout (the local cloud keeps it in log/NAME.stdout), not to syslog
    sys.argv = ["swift-%s-server" % kind, conf, "--verbose"]
    run()


if __name__ == "__main__":
    main()

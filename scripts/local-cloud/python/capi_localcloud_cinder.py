"""Cinder volume driver for the local test cloud.

Cinder ships FakeLoggingVolumeDriver for its own tests: volumes exist only in
cinder's database. Its image copy is inherited from the LVM driver, though,
which converts the image with qemu-img (as root, through rootwrap) into a
block device path under /dev. That cannot work here and must not be tried.
This subclass fetches the image from glance (so the caller's token, the image
service and the image data are exercised) and writes it nowhere.
"""
import hashlib

from oslo_log import log as logging

from cinder.tests import fake_driver

LOG = logging.getLogger(__name__)


class _Digest:
    """A write-only file object that only hashes and counts."""

    def __init__(self):
        self.sha256 = hashlib.sha256()
        self.size = 0

    def write(self, chunk):
        self.sha256.update(chunk)
        self.size += len(chunk)


class LocalCloudVolumeDriver(fake_driver.FakeLoggingVolumeDriver):
    """Fake volumes that can be created from images and uploaded to images."""

    def copy_image_to_volume(self, context, volume, image_service, image_id):
        sink = _Digest()
        image_service.download(context, image_id, data=sink)
        LOG.info("volume %s: read image %s (%d bytes, sha256 %s), wrote nothing",
                 volume.id, image_id, sink.size, sink.sha256.hexdigest())

    def copy_volume_to_image(self, context, volume, image_service, image_meta):
        # an empty image: there is no volume data to upload
        image_service.update(context, image_meta["id"], {}, b"")
        LOG.info("volume %s: uploaded as empty image %s", volume.id, image_meta["id"])

# The old tool's management stack (SovereignCloudStack k8s-cluster-api-provider, terraform/), ported to
# the OpenStack provider 3.x as the reference of `scripts/bench/deploy.js`. Test tooling, not product:
# - its SSH provisioners (file copies, remote-exec of the bootstrap scripts) are dropped: our stack
#   reaches the VM through cloud-init only, and the local cloud's fake hypervisor boots nothing;
# - openstack_compute_secgroup_v2 (gone in 3.x) is a networking security group with rule resources;
# - the boot volume size is a variable (the old tool fixed 30 GB) so both sides copy the same size.
# What matters for the comparison is kept as the old tool had it: a named boot volume of its own,
# attached with delete_on_termination (Nova deletes it with the server), block_device ignored.

terraform {
  required_providers {
    openstack = {
      source  = "terraform-provider-openstack/openstack"
      version = "~> 3.4.0"
    }
  }
}

variable "cloud_provider" {
  type    = string
  default = "local-e2e"
}

variable "prefix" {
  type    = string
  default = "bench-old"
}

variable "external" {
  type    = string
  default = "public"
}

variable "kind_flavor" {
  type    = string
  default = "SCS-2V-4"
}

variable "image" {
  type    = string
  default = "Ubuntu 24.04"
}

variable "boot_volume_size" {
  type    = number
  default = 10
}

variable "dns_nameservers" {
  type    = list(string)
  default = ["192.0.2.53"]
}

variable "availability_zone" {
  type    = string
  default = null
}

provider "openstack" {
  cloud = var.cloud_provider
}

resource "openstack_compute_keypair_v2" "keypair" {
  name = "${var.prefix}-keypair"
}

resource "openstack_identity_application_credential_v3" "appcred" {
  name         = "${var.prefix}-appcred"
  description  = "Credential for the ${var.prefix} management"
  unrestricted = true
}

# security groups: SSH and ICMP for the nodes, SSH and ICMP for the management host
resource "openstack_networking_secgroup_v2" "ssh" {
  name        = "${var.prefix}-allow-ssh"
  description = "security group for ssh 22/tcp (managed by terraform)"
}

resource "openstack_networking_secgroup_rule_v2" "ssh" {
  security_group_id = openstack_networking_secgroup_v2.ssh.id
  direction         = "ingress"
  ethertype         = "IPv4"
  protocol          = "tcp"
  port_range_min    = 22
  port_range_max    = 22
  remote_ip_prefix  = "0.0.0.0/0"
}

resource "openstack_networking_secgroup_v2" "icmp" {
  name        = "${var.prefix}-allow-icmp"
  description = "security group for ICMP"
}

resource "openstack_networking_secgroup_rule_v2" "icmp" {
  security_group_id = openstack_networking_secgroup_v2.icmp.id
  direction         = "ingress"
  ethertype         = "IPv4"
  protocol          = "icmp"
  remote_ip_prefix  = "0.0.0.0/0"
}

resource "openstack_networking_secgroup_v2" "mgmt" {
  name        = "${var.prefix}-mgmt"
  description = "security group for mgmtcluster (managed by terraform)"
}

resource "openstack_networking_secgroup_rule_v2" "mgmt_ssh" {
  security_group_id = openstack_networking_secgroup_v2.mgmt.id
  direction         = "ingress"
  ethertype         = "IPv4"
  protocol          = "tcp"
  port_range_min    = 22
  port_range_max    = 22
  remote_ip_prefix  = "0.0.0.0/0"
}

resource "openstack_networking_secgroup_rule_v2" "mgmt_icmp" {
  security_group_id = openstack_networking_secgroup_v2.mgmt.id
  direction         = "ingress"
  ethertype         = "IPv4"
  protocol          = "icmp"
  remote_ip_prefix  = "0.0.0.0/0"
}

# network
resource "openstack_networking_network_v2" "network_mgmt" {
  name = "${var.prefix}-net"
}

resource "openstack_networking_subnet_v2" "subnet_mgmt" {
  name            = "${var.prefix}-subnet"
  network_id      = openstack_networking_network_v2.network_mgmt.id
  ip_version      = 4
  cidr            = "10.0.0.0/24"
  dns_nameservers = var.dns_nameservers
  allocation_pool {
    start = "10.0.0.11"
    end   = "10.0.0.254"
  }
}

data "openstack_networking_network_v2" "external" {
  name = var.external
}

resource "openstack_networking_router_v2" "router_mgmt" {
  name                    = "${var.prefix}-rtr"
  description             = "router for mgmtcluster (managed by terraform)"
  external_network_id     = data.openstack_networking_network_v2.external.id
  availability_zone_hints = var.availability_zone == null ? null : [var.availability_zone]
}

resource "openstack_networking_router_interface_v2" "router_interface" {
  router_id = openstack_networking_router_v2.router_mgmt.id
  subnet_id = openstack_networking_subnet_v2.subnet_mgmt.id
}

# the management host: port, floating IP, boot volume, server
resource "openstack_networking_floatingip_v2" "mgmtcluster_floatingip" {
  pool        = var.external
  description = "Floating IP for the ${var.prefix} management cluster node"
  tags        = ["${var.prefix}-mgmtcluster", "k8s-cluster-api-mgmtcluster"]
  depends_on  = [openstack_networking_router_interface_v2.router_interface]
}

resource "openstack_networking_port_v2" "mgmtcluster_port" {
  name               = "${var.prefix}-port"
  network_id         = openstack_networking_network_v2.network_mgmt.id
  security_group_ids = [openstack_networking_secgroup_v2.mgmt.id]
  fixed_ip {
    subnet_id = openstack_networking_subnet_v2.subnet_mgmt.id
  }
}

resource "openstack_networking_floatingip_associate_v2" "mgmtcluster_floatingip_association" {
  floating_ip = openstack_networking_floatingip_v2.mgmtcluster_floatingip.address
  port_id     = openstack_networking_port_v2.mgmtcluster_port.id
}

data "openstack_images_image_ids_v2" "images" {
  name = var.image
  sort = "updated_at:desc"
}

resource "openstack_blockstorage_volume_v3" "mgmtcluster_volume" {
  name        = "${var.prefix}-mgmtcluster"
  description = "Volume for the ${var.prefix} management cluster node"
  size        = var.boot_volume_size
  image_id    = data.openstack_images_image_ids_v2.images.ids[0]
}

resource "openstack_compute_instance_v2" "mgmtcluster_server" {
  name              = "${var.prefix}-mgmtcluster"
  flavor_name       = var.kind_flavor
  availability_zone = var.availability_zone
  key_pair          = openstack_compute_keypair_v2.keypair.name

  network {
    port = openstack_networking_port_v2.mgmtcluster_port.id
  }

  block_device {
    uuid                  = openstack_blockstorage_volume_v3.mgmtcluster_volume.id
    source_type           = "volume"
    destination_type      = "volume"
    boot_index            = 0
    delete_on_termination = true
  }

  lifecycle {
    ignore_changes = [block_device]
  }

  # The old tool's first boot (docker, conntrack limits); the bootstrap itself came over SSH.
  user_data = <<-EOF
    #cloud-config
    package_update: true
    runcmd:
      - echo net.netfilter.nf_conntrack_max=131072 > /etc/sysctl.d/90-conntrack_max.conf
      - sysctl -w -p /etc/sysctl.d/90-conntrack_max.conf
      - apt-get -y install --no-install-recommends docker.io
  EOF
}

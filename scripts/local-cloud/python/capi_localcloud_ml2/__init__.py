"""ML2 mechanism driver for the local test cloud: binds every port.

There is no Open vSwitch, no L2 agent and no dataplane on the local cloud.
Without a driver that binds ports, nova cannot boot a server (port binding
fails). This driver accepts the first segment offered for any host, reports
an OVS-style VIF and marks the port ACTIVE. Nothing is plugged anywhere.
"""
from neutron_lib import constants
from neutron_lib.api.definitions import portbindings
from neutron_lib.plugins.ml2 import api


class BindAllMechanismDriver(api.MechanismDriver):
    """Binds each port to the first segment on any host."""

    def initialize(self):
        """No state and no agents to track."""

    @property
    def connectivity(self):
        return portbindings.CONNECTIVITY_L2

    def bind_port(self, context):
        segments = list(context.segments_to_bind or [])
        if not segments:
            return
        vif_details = {
            portbindings.CAP_PORT_FILTER: True,
            portbindings.OVS_HYBRID_PLUG: False,
        }
        context.set_binding(segments[0][api.ID], portbindings.VIF_TYPE_OVS,
                            vif_details, status=constants.PORT_STATUS_ACTIVE)

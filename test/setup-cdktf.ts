// cdktf's Testing matchers (toHaveResource, toHaveResourceWithProperties, toHaveDataSource…).
import { Testing } from 'cdktf';

Testing.setupJest();

/** What the gateway module offers the other modules (the only file they may import from it). */
export { GatewayService } from './gateway.service';
